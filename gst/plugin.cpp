#include <gst/gst.h>

static gboolean plugin_init(GstPlugin *plugin) {
  (void)plugin;
  return TRUE;
}

GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, cudaprep,
                  "CUDA preprocessing of video frames into neural-network input tensors",
                  plugin_init, VERSION, "LGPL", "cudaprep", "https://github.com/cudaprep/cudaprep")
