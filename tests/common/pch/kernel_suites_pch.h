// Precompiled for every GStreamer-free C++ suite at once (tests/meson.build:
// the suites' objects are compiled in one target, cudaprep-kernel-suites).
// Only headers from outside the project: GoogleTest is most of what each
// suite used to parse on its own. Force-included, so a suite still includes
// what it uses. (No #pragma once: gcc warns about one in the header it
// precompiles.)

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>
