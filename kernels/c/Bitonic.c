// Bitonic sort of keys alone (Bitonic_U32/I32/F32/F64, Algorithm_SORT).
#include "bitonic.h"
