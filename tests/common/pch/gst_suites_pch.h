// Precompiled for every GStreamer C++ suite at once (tests/meson.build: the
// suites' objects are compiled in one target, cudaprep-gst-suites). Only
// headers from outside the project: GoogleTest is most of what each suite
// used to parse on its own. Force-included, so a suite still includes what
// it uses. (No #pragma once: gcc warns about one in the header it
// precompiles.)

#include <gtest/gtest.h>

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <vector>
