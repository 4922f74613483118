#include <config.h>
#undef NDEBUG
#include "ovstest.h"

static void
test_pfc_headroom_main(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
}

OVSTEST_REGISTER("test-pfc-headroom", test_pfc_headroom_main);
