# Upstream Open vSwitch's own tests (tests/testsuite, dummy datapath) on the
# patched tree: patches/ changes code that every OVS user runs.
#
#   make check-upstream     every upstream test (the PFC tests excluded:
#                           "make check" runs those).
#   make check-upstream-ci  the upstream tests of what patches/ touches:
#                           the userspace datapath and its PMD threads,
#                           netdev-dummy, meters, and actions that output a
#                           packet to several ports (clone, mirrors,
#                           flooding, patch ports, tunnels).  CI runs it.
#
# Both run the tests with -j$(nproc) and run those that failed once more
# (--recheck).  They fail if a test fails twice and is not listed in
# tests/upstream-known-failures-X.Y.txt for the Open vSwitch version X.Y
# built ("TITLE # REASON", one line per test: the tests that fail on that
# pristine Open vSwitch too).
# TESTSUITEFLAGS adds flags, e.g. TESTSUITEFLAGS=-j4 or TESTSUITEFLAGS=-v.

EXTRA_DIST += upstream.mk tests/upstream-known-failures-3.1.txt \
	tests/upstream-known-failures-3.5.txt

UPSTREAM_KNOWN_FAILURES = \
	$(srcdir)/tests/upstream-known-failures-$(OVS_SERIES).txt

# Keywords or title words (see "ovs/tests/testsuite --help"); a test that
# matches any of them runs.
UPSTREAM_CI_KEYWORDS = \
	pmd dpif-netdev dpctl netdev-dummy meter drop-stats \
	clone mirror mirroring flood output patch bond tunnel_push_pop

UPSTREAM_CHECK = MAKE='$(MAKE)' $(srcdir)/scripts/check-upstream.py \
	$(OVS_TREE) $(UPSTREAM_KNOWN_FAILURES)

check-upstream: all-local
	$(UPSTREAM_CHECK) -j`nproc` -k '!pfc' $(TESTSUITEFLAGS)

check-upstream-ci: all-local
	$(UPSTREAM_CHECK) -j`nproc` \
	    $(foreach k,$(UPSTREAM_CI_KEYWORDS),-k '$(k),!pfc') \
	    $(TESTSUITEFLAGS)

.PHONY: check-upstream check-upstream-ci
