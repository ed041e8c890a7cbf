// cudatensorsink's .npy writer: see gstcudaprepnpywriter-private.h.
#include "gstcudaprepnpywriter-private.h"

#include <vector>

#include "cudaprep/array.h"
#include "cudaprep/npy.h"
#include "gstcudaprepcuda-private.h"
#include "gstcudatensorsample-private.h"

#define GST_CAT_DEFAULT gst_cuda_prep_tensor_sink_debug

constexpr int kMaxLocationWidth = 20;  // the digits of G_MAXUINT64

bool GstCudaPrepNpyLocation::parse(const gchar *location, std::string *error) {
  *this = GstCudaPrepNpyLocation();
  std::string *text = &prefix_;
  for (const char *p = location; *p != '\0'; ++p) {
    if (*p != '%') {
      *text += *p;
      continue;
    }
    const char *spec = p;
    ++p;
    if (*p == '%') {
      *text += '%';
      continue;
    }
    bool zero_pad = false;
    if (*p == '0') {
      zero_pad = true;
      ++p;
    }
    int width = 0;
    while (*p >= '0' && *p <= '9' && width <= kMaxLocationWidth) width = width * 10 + (*p++ - '0');
    if (width > kMaxLocationWidth) {
      *error = "the width of \"" + std::string(spec, p) + "\" is above " +
               std::to_string(kMaxLocationWidth);
      return false;
    }
    if (*p != 'd' && *p != 'i' && *p != 'u') {
      const std::string found = *p == '\0' ? std::string(spec) : std::string(spec, p + 1);
      *error = "\"" + found +
               "\" is not a conversion the sink writes: use one %d, %i or %u, optionally with "
               "a width (%5d) or zero-padded width (%05d), for the tensor's index, and %% for "
               "a percent sign";
      return false;
    }
    if (numbered_) {
      *error = "it has more than one conversion; use one %d, %i or %u for the tensor's index";
      return false;
    }
    numbered_ = true;
    zero_pad_ = zero_pad;
    width_ = width;
    text = &suffix_;
  }
  return true;
}

std::string GstCudaPrepNpyLocation::path(guint64 index) const {
  if (!numbered_) return prefix_;
  gchar *number = zero_pad_ ? g_strdup_printf("%0*" G_GUINT64_FORMAT, width_, index)
                            : g_strdup_printf("%*" G_GUINT64_FORMAT, width_, index);
  std::string path = prefix_ + number + suffix_;
  g_free(number);
  return path;
}

gboolean gst_cuda_prep_npy_check_location(GstElement *sink, const gchar *location) {
  if (location == nullptr) return TRUE;
  GstCudaPrepNpyLocation pattern;
  std::string error;
  if (!pattern.parse(location, &error)) {
    GST_ELEMENT_ERROR(sink, RESOURCE, SETTINGS,
                      ("Invalid location \"%s\": %s", location, error.c_str()), (nullptr));
    return FALSE;
  }
  const std::string first_file = pattern.path(0);
  gchar *dir = g_path_get_dirname(first_file.c_str());
  const gboolean is_dir = g_file_test(dir, G_FILE_TEST_IS_DIR);
  if (!is_dir)
    GST_ELEMENT_ERROR(sink, RESOURCE, NOT_FOUND,
                      ("Cannot write tensor file \"%s\": the directory \"%s\" does not exist",
                       first_file.c_str(), dir),
                      ("location \"%s\"", location));
  g_free(dir);
  return is_dir;
}

gboolean gst_cuda_prep_npy_write_tensor(GstElement *sink, GstBuffer *buffer,
                                        const std::string &path, const gchar *location) {
  const GstCudaPrepTensor *tensor = nullptr;
  cudaprep::ArrayDesc array;
  if (!gst_cuda_prep_filled_tensor_array(buffer, &tensor, &array)) return FALSE;
  std::vector<guint8> host(cudaprep::array_span_bytes(array));
  const gchar *failed_call = nullptr;
  const cudaError_t err = gst_cuda_prep_tensor_copy_to_host(
      gst_buffer_peek_memory(buffer, 0), tensor, array, host.data(), &failed_call);
  if (!gst_cuda_prep_check(sink, err, failed_call, __FILE__, GST_FUNCTION, __LINE__)) return FALSE;
  std::string error;
  if (!cudaprep::write_npy(path, host.data(), array, &error)) {
    GST_ELEMENT_ERROR(sink, RESOURCE, WRITE,
                      ("Could not write tensor file \"%s\": %s", path.c_str(), error.c_str()),
                      ("location pattern \"%s\"", location));
    return FALSE;
  }
  GST_DEBUG_OBJECT(sink, "wrote %s", path.c_str());
  return TRUE;
}
