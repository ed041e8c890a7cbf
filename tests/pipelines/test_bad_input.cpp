// Bad input, without a GPU: every case is refused with a GStreamer error a
// user can act on, never a crash, an integer overflow or a silent accept.
// Covered here (the other suites cover crop rectangles, resize rules,
// normalize mean/std, device-id and the no-GPU error):
//  - huge and zero sizes in the pitched device layout and in the caps path
//    of every element (set_caps), with the size named in the error;
//  - formats and memory an element cannot read refused by its accept-caps;
//  - a mid-stream change to such caps refused, and if forced past
//    accept-caps, an error instead of a crash;
//  - crop edges whose sum overflows an int;
//  - tensors larger than a buffer can hold, and dtype / input mismatches;
//  - batch-size 0 never reaching the caps.
#include <gst/base/gstbasetransform.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include <gst/cudaprep/gstcudaprepformat-private.h>
#include <gst/cudaprep/gstcudaprepmemory.h>
#include "common/cuda_test.h"
#include "common/gst_frames.h"

namespace {

using cudaprep::test::caps_downstream_of;
using cudaprep::test::caps_string;
using cudaprep::test::offers_input_or_any_size;
using cudaprep::test::pipeline_error;
using cudaprep::test::posted_error;

// Calls the element's set_caps with these caps, as negotiation does after
// accept-caps; returns the error posted, `configured` whether it accepted.
std::string set_caps_error(GstElement *element, const std::string &in, const std::string &out,
                           gboolean *configured) {
  GstCaps *in_caps = gst_caps_from_string(in.c_str());
  GstCaps *out_caps = gst_caps_from_string(out.c_str());
  const std::string error = posted_error(element, [&]() {
    *configured = GST_BASE_TRANSFORM_GET_CLASS(element)->set_caps(GST_BASE_TRANSFORM(element),
                                                                  in_caps, out_caps);
  });
  gst_caps_unref(out_caps);
  gst_caps_unref(in_caps);
  return error;
}

bool sink_accepts(GstElement *element, const std::string &caps_text) {
  GstCaps *caps = gst_caps_from_string(caps_text.c_str());
  GstPad *sink = gst_element_get_static_pad(element, "sink");
  const bool accepted = gst_pad_query_accept_caps(sink, caps);
  gst_object_unref(sink);
  gst_caps_unref(caps);
  return accepted;
}

GstElement *make(const char *launch_line) {
  GError *error = nullptr;
  GstElement *element = gst_parse_launch(launch_line, &error);
  EXPECT_EQ(error, nullptr) << launch_line << ": " << (error != nullptr ? error->message : "");
  g_clear_error(&error);
  return element;
}

std::string planar_caps(const char *dtype, int channels, const char *order, int width, int height) {
  return std::string("application/x-cudaprep-planar(memory:CUDAPitched), dtype=") + dtype +
         ", channels=" + std::to_string(channels) + ", channel-order=" + order +
         ", width=" + std::to_string(width) + ", height=" + std::to_string(height) +
         ", framerate=30/1";
}

std::string tensor_caps(const char *dtype, int batch, int channels, const char *order, int width,
                        int height) {
  return std::string("other/x-cudaprep-tensor(memory:CUDAPitched), dtype=") + dtype +
         ", layout=NCHW, batch=" + std::to_string(batch) +
         ", channels=" + std::to_string(channels) + ", channel-order=" + order +
         ", width=" + std::to_string(width) + ", height=" + std::to_string(height);
}

const GstVideoFormat kFrameFormats[] = {
    GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBx,  GST_VIDEO_FORMAT_BGRx,
    GST_VIDEO_FORMAT_RGB,  GST_VIDEO_FORMAT_BGR,  GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_NV12,
    GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YUY2};

// --- The pitched device layout at the edges of int --------------------------

// Bytes of a row of `plane` and its row count, in 128-bit arithmetic that
// cannot overflow, from GStreamer's own format description.
struct ExactPlane {
  unsigned __int128 row_bytes;
  unsigned __int128 rows;
};

ExactPlane exact_plane(GstVideoFormat format, guint plane, gint64 width, gint64 height) {
  const GstVideoFormatInfo *info = gst_video_format_get_info(format);
  // The first component stored in `plane` gives its subsampling and bytes.
  guint component = 0;
  while (GST_VIDEO_FORMAT_INFO_PLANE(info, component) != plane) ++component;
  const gint64 w_sub = GST_VIDEO_FORMAT_INFO_W_SUB(info, component);
  const gint64 h_sub = GST_VIDEO_FORMAT_INFO_H_SUB(info, component);
  const gint64 plane_width = -((-width) >> w_sub);  // rounded up, as GStreamer does
  const gint64 rows = -((-height) >> h_sub);
  // Bytes per sample of the plane: its components interleaved (NV12 UV, YUY2).
  unsigned __int128 row_bytes = 0;
  if (format == GST_VIDEO_FORMAT_YUY2)
    row_bytes = static_cast<unsigned __int128>((width + 1) / 2) * 4;
  else
    row_bytes = static_cast<unsigned __int128>(plane_width) *
                GST_VIDEO_FORMAT_INFO_PSTRIDE(info, component);
  return {row_bytes, static_cast<unsigned __int128>(rows)};
}

// For every format at sizes around the int and 2 GiB limits: either the
// layout is refused, or it is exactly what unbounded arithmetic gives (no
// wrapped pitch, offset or size) with every pitch a positive int.
TEST(DeviceLayoutLimits, ExtremeSizesAreRefusedOrExact) {
  const gint64 sizes[] = {1,
                          2,
                          3,
                          255,
                          256,
                          257,
                          46341,
                          65536,
                          1 << 20,
                          (1 << 29) - 1,
                          1 << 29,
                          1 << 30,
                          G_MAXINT - 255,
                          G_MAXINT - 256,
                          G_MAXINT - 1,
                          G_MAXINT};
  int accepted = 0, refused = 0;
  for (GstVideoFormat format : kFrameFormats) {
    for (gint64 width : sizes) {
      for (gint64 height :
           {gint64{1}, gint64{2}, gint64{1081}, gint64{1} << 16, gint64{G_MAXINT}}) {
        GstVideoInfo info;
        gst_video_info_set_format(&info, format, 16, 16);
        GST_VIDEO_INFO_WIDTH(&info) = static_cast<gint>(width);
        GST_VIDEO_INFO_HEIGHT(&info) = static_cast<gint>(height);
        GstVideoInfo device_info;
        const std::string what = std::string(gst_video_format_to_string(format)) + " " +
                                 std::to_string(width) + "x" + std::to_string(height);
        if (!gst_cuda_prep_device_video_info(&info, &device_info)) {
          ++refused;
          continue;
        }
        ++accepted;
        unsigned __int128 offset = 0;
        for (guint plane = 0; plane < GST_VIDEO_INFO_N_PLANES(&info); ++plane) {
          const ExactPlane exact = exact_plane(format, plane, width, height);
          const unsigned __int128 pitch = (exact.row_bytes + GST_CUDA_PREP_PITCH_ALIGNMENT - 1) /
                                          GST_CUDA_PREP_PITCH_ALIGNMENT *
                                          GST_CUDA_PREP_PITCH_ALIGNMENT;
          ASSERT_GT(GST_VIDEO_INFO_PLANE_STRIDE(&device_info, plane), 0) << what;
          ASSERT_TRUE(static_cast<unsigned __int128>(
                          GST_VIDEO_INFO_PLANE_STRIDE(&device_info, plane)) == pitch)
              << what << " plane " << plane;
          ASSERT_TRUE(GST_VIDEO_INFO_PLANE_OFFSET(&device_info, plane) == offset)
              << what << " plane " << plane;
          offset += pitch * exact.rows;
        }
        ASSERT_TRUE(GST_VIDEO_INFO_SIZE(&device_info) == offset) << what;
      }
    }
  }
  // Both outcomes happen: the sweep crosses the limit for every format.
  EXPECT_GT(accepted, 100);
  EXPECT_GT(refused, 100);
}

TEST(DeviceLayoutLimits, EmptyFramesAreRefused) {
  for (GstVideoFormat format : kFrameFormats) {
    for (const auto &[width, height] : {std::pair{0, 16}, std::pair{16, 0}, std::pair{0, 0},
                                        std::pair{-1, 16}, std::pair{16, G_MININT}}) {
      GstVideoInfo info;
      gst_video_info_set_format(&info, format, 16, 16);
      GST_VIDEO_INFO_WIDTH(&info) = width;
      GST_VIDEO_INFO_HEIGHT(&info) = height;
      GstVideoInfo device_info;
      EXPECT_FALSE(gst_cuda_prep_device_video_info(&info, &device_info))
          << gst_video_format_to_string(format) << " " << width << "x" << height;
    }
  }
}

// --- Huge and empty frames in the caps path of every element ------------------

struct CapsCase {
  const char *element;  // launch line
  std::string in, out;
};

TEST(HugeFrames, EveryVideoElementNamesTheSizeAtCapsTime) {
  struct Size {
    const char *format;
    int width, height;
    const char *named;
  } const sizes[] = {
      {"RGBA", 32768, 32768, "32768x32768 RGBA"},    // 4 GiB: GStreamer refuses it
      {"GRAY8", G_MAXINT, 1, "2147483647x1 GRAY8"},  // GStreamer 1.22 wraps its stride
      {"RGBA", 536870911, 1, "536870911x1 RGBA"},    // 2 GiB row, 256-byte pitch overflows
  };
  for (const Size &size : sizes) {
    const std::string device = caps_string(size.format, size.width, size.height, true);
    const std::string system = caps_string(size.format, size.width, size.height);
    const std::string small_rgb = caps_string("RGB", 64, 64, true);
    const CapsCase cases[] = {
        {"cudaframeupload", system, device},
        {"cudaframedownload", device, system},
        {"cudacrop", device, device},
        {"cudaresize", device, small_rgb},
        {"cudaresize", small_rgb, device},
        {"cudanormalize", device, planar_caps("float32", 3, "RGB", size.width, size.height)},
        {"cudatensorize dtype=uint8", device,
         tensor_caps("uint8", 1, 1, "GRAY", size.width, size.height)},
    };
    for (const CapsCase &c : cases) {
      GstElement *element = make(c.element);
      gboolean configured = TRUE;
      const std::string error = set_caps_error(element, c.in, c.out, &configured);
      EXPECT_FALSE(configured) << c.element << " took " << c.in << " -> " << c.out;
      EXPECT_NE(error.find(size.named), std::string::npos) << c.element << ": " << error;
      EXPECT_NE(error.find("too large"), std::string::npos) << c.element << ": " << error;
      gst_object_unref(element);
    }
  }
}

// Zero sizes never pass accept-caps; forced past it they are named.
TEST(EmptyFrames, AreRefusedByAcceptCapsAndNamedAtCapsTime) {
  for (const char *element_name :
       {"cudaframeupload", "cudaframedownload", "cudacrop", "cudaresize", "cudanormalize"}) {
    GstElement *element = make(element_name);
    EXPECT_TRUE(sink_accepts(element, caps_string("RGBA", 16, 16, true))) << element_name;
    EXPECT_FALSE(sink_accepts(element, caps_string("RGBA", 0, 16, true))) << element_name;
    EXPECT_FALSE(sink_accepts(element, caps_string("RGBA", 16, 0, true))) << element_name;
    gst_object_unref(element);
  }
  GstElement *crop = make("cudacrop");
  gboolean configured = TRUE;
  const std::string error = set_caps_error(crop, caps_string("RGBA", 0, 16, true),
                                           caps_string("RGBA", 0, 16, true), &configured);
  EXPECT_FALSE(configured);
  EXPECT_NE(error.find("0x16 RGBA have no pixels"), std::string::npos) << error;
  gst_object_unref(crop);
}

// --- Formats an element cannot read ----------------------------------------

TEST(UnsupportedFormats, EveryElementsAcceptCapsRefusesThem) {
  const std::string nvcodec_nv12 =
      "video/x-raw(memory:CUDAMemory), format=NV12, width=64, height=64, framerate=30/1";
  const std::string audio = "audio/x-raw, format=S16LE, rate=48000, channels=2, layout=interleaved";
  struct Case {
    const char *element;
    std::vector<std::string> accepted, refused;
  } const cases[] = {
      // nvcodec's CUDAMemory frames and P010 are read (test_nvcodec); others are not.
      {"cudaframeupload",
       {caps_string("NV12", 64, 64), caps_string("YUY2", 64, 64, true),
        caps_string("P010_10LE", 64, 64), nvcodec_nv12},
       {caps_string("v210", 64, 64), caps_string("RGB16", 64, 64), audio}},
      {"cudaframedownload",
       {caps_string("I420", 64, 64, true)},
       {caps_string("v210", 64, 64, true), caps_string("ARGB64", 64, 64, true), nvcodec_nv12,
        audio}},
      {"cudacrop",
       {caps_string("NV12", 64, 64, true), nvcodec_nv12},
       {caps_string("NV12", 64, 64), caps_string("NV16", 64, 64, true), audio}},
      {"cudaresize",
       {caps_string("YUY2", 64, 64, true), nvcodec_nv12},
       {caps_string("RGBA", 64, 64), caps_string("UYVY", 64, 64, true), audio}},
      {"cudanormalize",
       {caps_string("BGRx", 64, 64, true)},
       {caps_string("NV12", 64, 64, true), caps_string("I420", 64, 64, true),
        caps_string("RGBA", 64, 64), nvcodec_nv12, planar_caps("float32", 3, "RGB", 64, 64)}},
      {"cudatensorize",
       {caps_string("RGB", 64, 64, true), planar_caps("float16", 3, "BGR", 64, 64)},
       {caps_string("NV12", 64, 64, true), caps_string("RGB", 64, 64),
        planar_caps("uint8", 3, "RGB", 64, 64), planar_caps("float64", 3, "RGB", 64, 64),
        nvcodec_nv12}},
      {"cudatensorsink",
       {tensor_caps("float16", 4, 3, "RGB", 64, 64)},
       {tensor_caps("float32", 0, 3, "RGB", 64, 64), tensor_caps("int32", 1, 3, "RGB", 64, 64),
        tensor_caps("float32", 1, 4, "RGB", 64, 64), caps_string("RGB", 64, 64, true), audio}},
  };
  for (const Case &c : cases) {
    GstElement *element = make(c.element);
    for (const std::string &caps : c.accepted)
      EXPECT_TRUE(sink_accepts(element, caps)) << c.element << " should accept " << caps;
    for (const std::string &caps : c.refused)
      EXPECT_FALSE(sink_accepts(element, caps)) << c.element << " should refuse " << caps;
    gst_object_unref(element);
  }
}

// An unsupported format that gets past accept-caps (an element calling
// set_caps itself, a bug upstream) is named, not crashed on.
TEST(UnsupportedFormats, ForcedPastAcceptCapsTheyAreNamed) {
  const struct {
    const char *element;
    std::string in, out;
    const char *named;
  } cases[] = {
      {"cudaframeupload", caps_string("v210", 64, 64), caps_string("v210", 64, 64, true),
       "Unsupported video format v210"},
      {"cudacrop", caps_string("NV16", 64, 64, true), caps_string("NV16", 64, 64, true),
       "Unsupported video format NV16"},
      {"cudaresize", caps_string("NV12", 64, 64, true), caps_string("NV12", 32, 32, true),
       "Unsupported conversion NV12 -> NV12"},
      {"cudanormalize", caps_string("NV12", 64, 64, true), planar_caps("float32", 3, "RGB", 64, 64),
       "cannot give channel-order RGB from NV12"},
      {"cudanormalize", caps_string("RGBA", 64, 64, true),
       planar_caps("float32", 3, "RGB", 64, 64) + ", extra=1, channels=2",
       "Invalid planar output caps"},
      {"cudatensorize dtype=uint8", caps_string("NV12", 64, 64, true),
       tensor_caps("uint8", 1, 3, "RGB", 64, 64), "cudatensorize reads"},
      // The template cannot tie channels to channel-order: set_caps does.
      {"cudatensorize", planar_caps("float32", 2, "RGB", 64, 64),
       tensor_caps("float32", 1, 2, "RGB", 64, 64), "Invalid planar input caps"},
  };
  for (const auto &c : cases) {
    GstElement *element = make(c.element);
    gboolean configured = TRUE;
    const std::string error = set_caps_error(element, c.in, c.out, &configured);
    EXPECT_FALSE(configured) << c.element << " took " << c.in;
    EXPECT_NE(error.find(c.named), std::string::npos) << c.element << ": " << error;
    gst_object_unref(element);
  }
}

// Upstream switching mid-stream to a format the element cannot read meets
// two gates: accept-caps refuses the new caps (GStreamer then stops the
// stream as not-negotiated), and caps forced through the element's caps
// event are refused with an error naming the format, not a crash.
TEST(UnsupportedFormats, AChangeMidStreamIsRefusedWithAnError) {
  const std::string readable = caps_string("RGBA", 64, 64, true);
  const std::string unreadable = caps_string("v210", 64, 64, true);
  // (cudaframeupload and cudaframedownload have no caps-event check of their
  // own: past accept-caps GStreamer refuses such caps as not-negotiated.)
  for (const char *element_name :
       {"cudacrop", "cudaresize", "cudanormalize", "cudatensorize dtype=uint8"}) {
    GstElement *element = make(element_name);
    EXPECT_TRUE(sink_accepts(element, readable)) << element_name;
    EXPECT_FALSE(sink_accepts(element, unreadable)) << element_name;
    bool accepted = true;
    const std::string error = posted_error(element, [&]() {
      GstCaps *caps = gst_caps_from_string(unreadable.c_str());
      accepted = GST_BASE_TRANSFORM_GET_CLASS(element)->sink_event(GST_BASE_TRANSFORM(element),
                                                                   gst_event_new_caps(caps));
      gst_caps_unref(caps);
    });
    EXPECT_FALSE(accepted) << element_name;
    EXPECT_NE(error.find("Unsupported video format v210"), std::string::npos)
        << element_name << ": " << error;
    gst_object_unref(element);
  }
}

// --- Crop edges whose sum overflows int ----------------------------------

// (No size of the crop's own: the caps then reach the crop, which names it.)
TEST(CropOverflow, EdgesSummingPastIntMaxOfferNoSizeOfTheirOwn) {
  GstElement *crop = make("cudacrop left=2147483647 right=2147483647");
  const std::string input = caps_string("RGBA", 1920, 1080, true);
  GstCaps *out = caps_downstream_of(crop, input.c_str());
  gchar *text = gst_caps_to_string(out);
  EXPECT_TRUE(offers_input_or_any_size(out, input)) << "a wrapped crop offered " << text;
  g_free(text);
  gst_caps_unref(out);
  gst_object_unref(crop);
}

TEST(CropOverflow, ARegionReachingPastIntMaxIsAnErrorNamingIt) {
  GstElement *crop = make("cudacrop x=2147483000 width=1000 height=10");
  const std::string input = caps_string("RGBA", 1920, 1080, true);
  GstCaps *out = caps_downstream_of(crop, input.c_str());
  EXPECT_TRUE(offers_input_or_any_size(out, input));
  gst_caps_unref(out);
  bool accepted = true;
  const std::string error = posted_error(crop, [&]() {
    GstCaps *caps = gst_caps_from_string(input.c_str());
    accepted = GST_BASE_TRANSFORM_GET_CLASS(crop)->sink_event(GST_BASE_TRANSFORM(crop),
                                                              gst_event_new_caps(caps));
    gst_caps_unref(caps);
  });
  EXPECT_FALSE(accepted);
  EXPECT_NE(error.find("x=2147483000"), std::string::npos) << error;
  EXPECT_NE(error.find("does not fit the 1920x1080"), std::string::npos) << error;
  gst_object_unref(crop);
}

// --- Tensors ------------------------------------------------------------------

TEST(TensorLimits, ATensorLargerThanABufferIsNamedAtCapsTime) {
  // 1024 x 3 x 1080 x 1920 float32 = 25 GiB.
  GstElement *tensorize = make("cudatensorize batch-size=1024");
  gboolean configured = TRUE;
  std::string error =
      set_caps_error(tensorize, planar_caps("float32", 3, "RGB", 1920, 1080),
                     tensor_caps("float32", 1024, 3, "RGB", 1920, 1080), &configured);
  EXPECT_FALSE(configured);
  EXPECT_NE(error.find("batch-size=1024 x 3 channel(s) x 1920x1080"), std::string::npos) << error;
  EXPECT_NE(error.find("lower batch-size"), std::string::npos) << error;
  gst_object_unref(tensorize);

  // One that fits: 4 x 3 x 640 x 640 float16.
  tensorize = make("cudatensorize batch-size=4 dtype=float16");
  error = set_caps_error(tensorize, planar_caps("float16", 3, "RGB", 640, 640),
                         tensor_caps("float16", 4, 3, "RGB", 640, 640), &configured);
  EXPECT_TRUE(configured) << error;
  gst_object_unref(tensorize);
}

TEST(TensorLimits, APlanarFrameLargerThanABufferIsNamed) {
  // A 1.5 GiB RGBA frame gives 3 planes of 23000 x 16384 float32: 4.5 GiB.
  GstElement *normalize = make("cudanormalize");
  gboolean configured = TRUE;
  const std::string error =
      set_caps_error(normalize, caps_string("RGBA", 23000, 16384, true),
                     planar_caps("float32", 3, "RGB", 23000, 16384), &configured);
  EXPECT_FALSE(configured);
  EXPECT_NE(error.find("Invalid planar output caps"), std::string::npos) << error;
  EXPECT_NE(error.find("at most 4 GiB"), std::string::npos) << error;
  gst_object_unref(normalize);
}

TEST(TensorMismatch, DtypeAndInputThatDoNotGoTogetherNameTheFix) {
  const struct {
    const char *element;
    std::string in, out;
    const char *named;
  } cases[] = {
      {"cudatensorize dtype=float32", caps_string("RGBA", 64, 64, true),
       tensor_caps("float32", 1, 3, "RGB", 64, 64), "put cudanormalize before cudatensorize"},
      {"cudatensorize dtype=float16", caps_string("GRAY8", 64, 64, true),
       tensor_caps("float16", 1, 1, "GRAY", 64, 64), "dtype=float16"},
      {"cudatensorize dtype=uint8", planar_caps("float32", 3, "RGB", 64, 64),
       tensor_caps("uint8", 1, 3, "RGB", 64, 64), "dtype=uint8 needs 8-bit video input"},
      {"cudatensorize batch-size=2", planar_caps("float32", 3, "RGB", 64, 64),
       tensor_caps("float32", 4, 3, "RGB", 64, 64),
       "Output caps do not describe the tensor cudatensorize makes"},
  };
  for (const auto &c : cases) {
    GstElement *element = make(c.element);
    gboolean configured = TRUE;
    const std::string error = set_caps_error(element, c.in, c.out, &configured);
    EXPECT_FALSE(configured) << c.element;
    EXPECT_NE(error.find(c.named), std::string::npos) << c.element << ": " << error;
    gst_object_unref(element);
  }
}

// A batch-size outside 1..1024 on a launch line is not silently replaced by
// the old value: the element refuses to start, naming the value (no GPU
// needed: settings are checked before the device is chosen).
TEST(BatchSize, OutOfRangeOnALaunchLineIsAnErrorNamingIt) {
  for (const char *value : {"0", "100000"}) {
    GstElement *tensorize = make("cudatensorize batch-size=3");
    gst_util_set_object_arg(G_OBJECT(tensorize), "batch-size", value);
    guint batch_size = 0;
    g_object_get(tensorize, "batch-size", &batch_size, nullptr);
    EXPECT_EQ(batch_size, static_cast<guint>(std::stoul(value)));
    GstStateChangeReturn ret = GST_STATE_CHANGE_SUCCESS;
    const std::string error =
        posted_error(tensorize, [&] { ret = gst_element_set_state(tensorize, GST_STATE_READY); });
    EXPECT_EQ(ret, GST_STATE_CHANGE_FAILURE);
    EXPECT_NE(error.find(std::string("batch-size=") + value), std::string::npos) << error;
    gst_element_set_state(tensorize, GST_STATE_NULL);
    gst_object_unref(tensorize);
  }
}

// Holds nearly all of the current device's free memory for its lifetime: a
// real allocation failure for whatever runs meanwhile.
class DeviceMemoryHog {
 public:
  DeviceMemoryHog() {
    for (size_t chunk : {size_t{1} << 30, size_t{256} << 20, size_t{16} << 20}) {
      void *block = nullptr;
      while (cudaMalloc(&block, chunk) == cudaSuccess) blocks_.push_back(block);
      cudaGetLastError();
    }
  }
  ~DeviceMemoryHog() {
    for (void *block : blocks_) cudaFree(block);
  }
  size_t free_bytes() const {
    size_t free = 0, total = 0;
    return cudaMemGetInfo(&free, &total) == cudaSuccess ? free : 0;
  }

 private:
  std::vector<void *> blocks_;
};

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// Out of GPU memory while a pipeline starts: an element error naming it and
// the device, not "Internal data stream error", no crash, no hang; and the
// same pipeline runs once the memory is back.
TEST(OutOfMemory, StartingAPipelineOnAFullDeviceNamesIt) {
  CUDAPREP_REQUIRE_GPU();
  const char *pipeline =
      "videotestsrc num-buffers=3 ! video/x-raw,format=RGBA,width=3840,height=2160 ! "
      "cudaframeupload ! cudaresize ! video/x-raw(memory:CUDAPitched),width=3840,height=2160,"
      "format=RGB ! cudaframedownload ! fakesink";
  {
    DeviceMemoryHog hog;
    ASSERT_LT(hog.free_bytes(), size_t{64} << 20) << "could not fill the device";
    const std::string error = pipeline_error(pipeline);
    EXPECT_NE(lower(error).find("out of memory"), std::string::npos) << error;
    EXPECT_NE(error.find("device 0"), std::string::npos) << error;
  }
  EXPECT_EQ(pipeline_error(pipeline), "");
}

}  // namespace
