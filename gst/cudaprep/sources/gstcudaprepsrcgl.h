// The GL display cudaprepsrc hands the elements inside it that ask for one.
// GStreamer 1.22's nvcodec decoders (nvh264dec, nvh265dec) ask whenever
// they open, whatever they will output; with no window system GStreamer
// then makes an EGL display, which loads NVIDIA's EGL driver and its
// thread, and that thread can crash the process at exit (docs/faults.md).
// cudaprepsrc's decoder never outputs GL memory, so the elements of the
// decoder's part get a display of no window system (what GST_GL_WINDOW=none
// makes), unless the pipeline gave the bin a display of its own. Part of
// cudaprepsrc.
#pragma once

#include <gst/gst.h>

#include <mutex>

class GstCudaPrepSrcGlDisplay {
 public:
  GstCudaPrepSrcGlDisplay() = default;
  ~GstCudaPrepSrcGlDisplay();
  GstCudaPrepSrcGlDisplay(const GstCudaPrepSrcGlDisplay &) = delete;
  GstCudaPrepSrcGlDisplay &operator=(const GstCudaPrepSrcGlDisplay &) = delete;

  // Answers `message` (posted inside `bin`) when it asks for a GL display
  // and `bin` holds none: sets the display on the element that asked.
  // TRUE when it answered; the message is then handled. GStreamer's GL
  // library is not linked: where no element of the process loaded it, no
  // element can ask, and nothing is done.
  gboolean answer(GstElement *bin, GstMessage *message);

 private:
  GstContext *make_context();

  std::mutex lock_;
  GstObject *display_ = nullptr;  // a GstGLDisplay, shared by every cudaprepsrc
  void *gl_library_ = nullptr;    // a reference on the loaded libgstgl while display_ lives
};
