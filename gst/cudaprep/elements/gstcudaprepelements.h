// Every element of the plugin, registered in one call: the plugin module's
// init (plugin.cpp) and the test suites, which register the same code
// statically (gst_plugin_register_static) and so call its internals directly.
#pragma once

#include <gst/gst.h>

gboolean gst_cuda_prep_register_elements(GstPlugin *plugin);
