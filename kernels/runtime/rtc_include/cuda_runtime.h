// NVRTC stand-in for <cuda_runtime.h>: NVRTC has the device builtins,
// vector types and maths; the shared headers need the runtime's types only.
#pragma once
#include <cuda_runtime_api.h>
