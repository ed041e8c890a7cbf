// The plugin module: registration only. The elements and their base room are
// in elements/ and base/; what applications link is libgstcudaprep-1.0
// (gst-libs/gst/cudaprep/).
#include <gst/gst.h>

#include "elements/gstcudaprepelements.h"

static gboolean plugin_init(GstPlugin *plugin) {
  return gst_cuda_prep_register_elements(plugin);
}

GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, cudaprep,
                  "CUDA preprocessing of video frames into neural-network input tensors",
                  plugin_init, VERSION, "LGPL", "cudaprep", "https://github.com/cudaprep/cudaprep")
