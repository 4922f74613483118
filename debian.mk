# Debian package: openvswitch-switch-dpdk-pfc (debian/).
#
#   make deb        builds the .deb with "dpkg-buildpackage -b -us -uc" in a
#                   copy of the distributed files (make distdir) under
#                   $(DEB_BUILD_DIR), so that the package's clean/configure
#                   steps never touch this tree (ovs/ and the configuration
#                   stay as they are).  The .deb files land in $(DEB_BUILD_DIR).
#   make check-deb  builds the package, then installs it on this machine
#                   (with Debian's openvswitch-switch), starts Open vSwitch
#                   with ovs-ctl and DPDK, checks a pfc QoS port and purges
#                   it again: tests/deb/check-deb.sh.  Needs root.
#
# Builds take /tmp/pfc-build.lock, so that at most one runs at a time.

EXTRA_DIST += \
	debian.mk \
	debian/README.Debian \
	debian/changelog \
	debian/control \
	debian/copyright \
	debian/openvswitch-switch-dpdk-pfc.docs \
	debian/openvswitch-switch-dpdk-pfc.manpages \
	debian/openvswitch-switch-dpdk-pfc.postinst \
	debian/openvswitch-switch-dpdk-pfc.prerm \
	debian/rules \
	debian/source/format \
	tests/deb/check-deb.sh

DEB_BUILD_DIR = $(abs_builddir)/deb-build
DEB_SRC_DIR = $(DEB_BUILD_DIR)/$(PACKAGE)-$(VERSION)
DEB_BUILD_LOCK = /tmp/pfc-build.lock

deb:
	rm -rf $(DEB_BUILD_DIR)
	$(MKDIR_P) $(DEB_BUILD_DIR)
	$(MAKE) $(AM_MAKEFLAGS) distdir distdir='$(DEB_SRC_DIR)'
	cd '$(DEB_SRC_DIR)' && \
	    flock $(DEB_BUILD_LOCK) dpkg-buildpackage -b -us -uc
	rm -rf '$(DEB_SRC_DIR)'
	@ls -l $(DEB_BUILD_DIR)/*.deb

check-deb: deb
	$(srcdir)/tests/deb/check-deb.sh \
	    $(DEB_BUILD_DIR)/openvswitch-switch-dpdk-pfc_*.deb

.PHONY: deb check-deb

clean-local: clean-deb
clean-deb:
	rm -rf $(DEB_BUILD_DIR)
.PHONY: clean-deb
