#include "gstcudaprepelements.h"

#include <gst/cudaprep/gstcudatensorsink.h>

#include "elements/cudabatch/gstcudabatch.h"
#include "gstcudacrop.h"
#include "gstcudaframedownload.h"
#include "gstcudaframeupload.h"
#include "gstcudanormalize.h"
#include "gstcudapreprocess.h"
#include "sources/gstcudaprepsrc.h"
#include "elements/cudaresize/gstcudaresize.h"
#include "cudatensorize/gstcudatensorize.h"
#include "tracers/gstcudapreptracer.h"

gboolean gst_cuda_prep_register_elements(GstPlugin *plugin) {
  gboolean ok = TRUE;
  ok &= GST_ELEMENT_REGISTER(cudaframeupload, plugin);
  ok &= GST_ELEMENT_REGISTER(cudaframedownload, plugin);
  ok &= GST_ELEMENT_REGISTER(cudacrop, plugin);
  ok &= GST_ELEMENT_REGISTER(cudaresize, plugin);
  ok &= GST_ELEMENT_REGISTER(cudanormalize, plugin);
  ok &= GST_ELEMENT_REGISTER(cudatensorize, plugin);
  // The sink lives in the library (appsink's precedent): registered by type.
  ok &=
      gst_element_register(plugin, "cudatensorsink", GST_RANK_NONE, GST_TYPE_CUDA_PREP_TENSOR_SINK);
  ok &= GST_ELEMENT_REGISTER(cudabatch, plugin);
  ok &= GST_ELEMENT_REGISTER(cudapreprocess, plugin);
  ok &= GST_ELEMENT_REGISTER(cudaprepsrc, plugin);
  // The tracer (GST_TRACERS=cudapreptime) is a feature of the plugin too,
  // named apart from it: a feature named "cudaprep" is what
  // `gst-inspect-1.0 cudaprep` would show instead of the plugin's elements.
  ok &= gst_tracer_register(plugin, "cudapreptime", GST_TYPE_CUDA_PREP_TRACER);
  return ok;
}
