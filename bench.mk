# Benchmark of PFC against plain OVS-DPDK: what PFC costs the datapath
# with one and with two PMD threads, and how fast it reacts.
#
#   make bench      builds the tree if needed, then runs the shared
#                   buffer's figures (ovstest test-pfc-buffer bench: its
#                   decisions' cost per packet, incast with 8 senders),
#                   the ETS scheduler's (ovstest test-pfc-ets bench: the
#                   cost of a decision, ns and TSC cycles per packet),
#                   then utilities/ovs-pfc-bench on it, then
#                   utilities/ovs-pfc-bench-vhost: two tables with every
#                   figure next to its target, plus pfc-bench.png (per-
#                   priority throughput through a pause/resume cycle) and
#                   pfc-bench.json in the build directory.  Needs root,
#                   hugepages, python3-matplotlib and dpdk-testpmd; takes
#                   about 13 minutes.
#                   The latency figures need a build configured with
#                   OVS_CONFIGURE_FLAGS=--enable-usdt-probes and bpftrace;
#                   without them those rows say "not measured".
#
# The script takes /tmp/pfc-ovs.lock itself (only one ovs-vswitchd with DPDK
# runs at a time); PFC_BENCH_* variables in the environment tune it (see
# utilities/ovs-pfc-bench --help).

# utilities/ovs-pfc-bench and utilities/pfc_bench.py are distributed with
# the rest of utilities/.
EXTRA_DIST += bench.mk

bench: all-local
	$(abs_builddir)/$(OVS_TREE)/tests/ovstest test-pfc-buffer bench
	$(abs_builddir)/$(OVS_TREE)/tests/ovstest test-pfc-ets bench
	$(abs_builddir)/$(OVS_TREE)/tests/ovstest test-pfc-classify bench
	$(abs_builddir)/$(OVS_TREE)/tests/ovstest test-pfc-ecn bench
	PFC_BENCH_PNG='$(abs_builddir)/pfc-bench.png' \
	PFC_BENCH_JSON='$(abs_builddir)/pfc-bench.json' \
	    $(srcdir)/utilities/ovs-pfc-bench $(abs_builddir)/$(OVS_TREE)
	$(srcdir)/utilities/ovs-pfc-bench-vhost $(abs_builddir)/$(OVS_TREE)
.PHONY: bench

# The vhost-user figures alone (also the last part of 'make bench'): what
# QoS type pfc costs on a vhost-user port, and the frames lost into a guest
# that stalls for 100 ms, stock and with pfc.  About a minute.
bench-vhost: all-local
	$(srcdir)/utilities/ovs-pfc-bench-vhost $(abs_builddir)/$(OVS_TREE)
.PHONY: bench-vhost

clean-bench:
	rm -f pfc-bench.png pfc-bench.json
.PHONY: clean-bench
