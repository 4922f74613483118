#include <config.h>
#undef NDEBUG
#include "ovstest.h"
static void test_pfc_main(int argc, char *argv[]) { (void) argc; (void) argv; }
OVSTEST_REGISTER("test-pfc", test_pfc_main);
