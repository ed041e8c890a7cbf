// Default element names after the factory (cudaresize0, cudatensorsink1),
// for element types whose GType carries the project's prefix
// (GstCudaPrepResize): GstObject names an unnamed object after its type
// name, which would make them cudaprepresize0. The names users see in logs,
// in error messages and through gst_bin_get_by_name() stay those of the
// factory, as for GStreamer's own elements. Header-only and not installed:
// the library's sink and the plugin's elements both use it, and the library
// exports only its C API.
#pragma once

#include <gst/gst.h>

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace cudaprep {

// The next default name of an element of `factory_name`: the name followed
// by a count per factory, from 0, as GStreamer counts per type.
inline std::string next_factory_element_name(const char *factory_name) {
  static std::mutex mutex;
  static std::map<std::string, int> counts;
  std::lock_guard<std::mutex> lock(mutex);
  return factory_name + std::to_string(counts[factory_name]++);
}

// GObjectClass::constructor that gives a NULL "name" construct property the
// factory's default, then constructs as the nearest ancestor class whose
// constructor is another.
inline GObject *construct_named_after_factory(GType type, guint n_properties,
                                              GObjectConstructParam *properties) {
  GObjectClass *klass = G_OBJECT_CLASS(g_type_class_peek(type));
  GObjectClass *ancestor = klass;
  while (ancestor->constructor == construct_named_after_factory) {
    ancestor = G_OBJECT_CLASS(g_type_class_peek_parent(ancestor));
  }
  GstElementFactory *factory = GST_ELEMENT_CLASS(klass)->elementfactory;
  std::vector<GObjectConstructParam> named(properties, properties + n_properties);
  GValue default_name = G_VALUE_INIT;
  for (GObjectConstructParam &property : named) {
    if (factory == nullptr || g_strcmp0(property.pspec->name, "name") != 0 ||
        g_value_get_string(property.value) != nullptr) {
      continue;
    }
    g_value_init(&default_name, G_TYPE_STRING);
    g_value_set_string(&default_name, next_factory_element_name(
                                          gst_plugin_feature_get_name(factory))
                                          .c_str());
    property.value = &default_name;
  }
  GObject *object = ancestor->constructor(type, n_properties, named.data());
  if (G_IS_VALUE(&default_name)) g_value_unset(&default_name);
  return object;
}

// Makes `klass` (an element class) and its subclasses name unnamed elements
// after their factory.
inline void name_elements_after_factory(GObjectClass *klass) {
  klass->constructor = construct_named_after_factory;
}

}  // namespace cudaprep
