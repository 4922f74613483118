#include <config.h>
#include "pfc-headroom.h"
