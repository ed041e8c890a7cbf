// cudaprepsrc's GL display (gstcudaprepsrcgl.h).
#include "sources/gstcudaprepsrcgl.h"

#include <dlfcn.h>

GST_DEBUG_CATEGORY_EXTERN(gst_cuda_prep_src_debug);
#define GST_CAT_DEFAULT gst_cuda_prep_src_debug

namespace {

// GST_GL_DISPLAY_CONTEXT_TYPE, without the GL headers.
constexpr const char *kGlDisplayContextType = "gst.gl.GLDisplay";

using GetType = GType (*)();
using SetGlDisplay = void (*)(GstContext *, GstObject *);

// One display of no window system for every cudaprepsrc of the process,
// while any holds it: each display keeps an event thread.
std::mutex shared_lock;
GWeakRef shared_display;

}  // namespace

GstCudaPrepSrcGlDisplay::~GstCudaPrepSrcGlDisplay() {
  if (display_ != nullptr) gst_object_unref(display_);
  if (gl_library_ != nullptr) dlclose(gl_library_);
}

GstContext *GstCudaPrepSrcGlDisplay::make_context() {
  std::lock_guard<std::mutex> guard(lock_);
  // Only a process that loaded the GL library already has an element asking.
  if (gl_library_ == nullptr) gl_library_ = dlopen("libgstgl-1.0.so.0", RTLD_NOW | RTLD_NOLOAD);
  if (gl_library_ == nullptr) return nullptr;
  const auto get_type = reinterpret_cast<GetType>(dlsym(gl_library_, "gst_gl_display_get_type"));
  const auto set_gl_display =
      reinterpret_cast<SetGlDisplay>(dlsym(gl_library_, "gst_context_set_gl_display"));
  if (get_type == nullptr || set_gl_display == nullptr) return nullptr;
  if (display_ == nullptr) {
    std::lock_guard<std::mutex> shared_guard(shared_lock);
    display_ = static_cast<GstObject *>(g_weak_ref_get(&shared_display));
    if (display_ == nullptr) {
      // The base class itself is the display of no window system, as
      // gst_gl_display_new() makes it for GST_GL_WINDOW=none.
      display_ = GST_OBJECT(g_object_new(get_type(), nullptr));
      gst_object_ref_sink(display_);
      g_weak_ref_set(&shared_display, display_);
    }
  }
  GstContext *context = gst_context_new(kGlDisplayContextType, TRUE);
  set_gl_display(context, display_);
  return context;
}

gboolean GstCudaPrepSrcGlDisplay::answer(GstElement *bin, GstMessage *message) {
  const gchar *type = nullptr;
  GstObject *from = GST_MESSAGE_SRC(message);
  if (GST_MESSAGE_TYPE(message) != GST_MESSAGE_NEED_CONTEXT || !GST_IS_ELEMENT(from) ||
      !gst_message_parse_context_type(message, &type) || g_strcmp0(type, kGlDisplayContextType))
    return FALSE;
  // A display the pipeline set on the bin is the one to use: GstBin answers with it.
  if (GstContext *given = gst_element_get_context(bin, kGlDisplayContextType)) {
    gst_context_unref(given);
    return FALSE;
  }
  GstContext *context = make_context();
  if (context == nullptr) return FALSE;
  GST_INFO_OBJECT(bin, "%s asks for a GL display: one of no window system", GST_OBJECT_NAME(from));
  gst_element_set_context(GST_ELEMENT(from), context);
  gst_context_unref(context);
  return TRUE;
}
