// Bitonic sort of keys with values (Bitonic_PAIRS, Algorithm_SORTPAIRS).
#define WITH_VALUES
#include "bitonic.h"
