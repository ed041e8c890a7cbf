#include <gst/gst.h>

#include "gstcudabatch.h"
#include "gstcudacrop.h"
#include "gstcudaframedownload.h"
#include "gstcudaframeupload.h"
#include "gstcudaresize.h"
#include "gstcudanormalize.h"
#include "gstcudatensorize.h"
#include "gstcudatensorsink.h"

static gboolean plugin_init(GstPlugin *plugin) {
  gboolean ok = TRUE;
  ok &= GST_ELEMENT_REGISTER(cudaframeupload, plugin);
  ok &= GST_ELEMENT_REGISTER(cudaframedownload, plugin);
  ok &= GST_ELEMENT_REGISTER(cudacrop, plugin);
  ok &= GST_ELEMENT_REGISTER(cudaresize, plugin);
  ok &= GST_ELEMENT_REGISTER(cudanormalize, plugin);
  ok &= GST_ELEMENT_REGISTER(cudatensorize, plugin);
  ok &= GST_ELEMENT_REGISTER(cudatensorsink, plugin);
  ok &= GST_ELEMENT_REGISTER(cudabatch, plugin);
  return ok;
}

GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, cudaprep,
                  "CUDA preprocessing of video frames into neural-network input tensors",
                  plugin_init, VERSION, "LGPL", "cudaprep", "https://github.com/cudaprep/cudaprep")
