// The public header must compile as C++ too: the same program, as C++.
#include "public_api.c"
