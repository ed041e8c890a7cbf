// cudatensorsink's .npy writer, its `location` property (not installed): the
// file name pattern, checked before the sink starts, and writing one tensor
// to one file. The sink keeps the state: the parsed pattern (under its
// lock) and the index of the next file (its streaming thread's).
#pragma once

#include <gst/gst.h>

#include <string>

// A parsed `location`: a prefix, then the tensor's index (if the pattern
// has a conversion) with an optional width, zero-padded or not, then a
// suffix; "%%" already turned into "%". The pattern is never given to
// printf: only the index is formatted, by us.
class GstCudaPrepNpyLocation {
 public:
  // Parses `location` (not NULL): at most one %d, %i or %u, with an
  // optional width (%5d) or zero-padded width (%05d) up to 20, for the
  // tensor's index; %% for a percent sign. On failure returns false with
  // `error` saying why.
  bool parse(const gchar *location, std::string *error);
  // The file of the tensor numbered `index`: the same file for every index
  // when the pattern has no conversion.
  std::string path(guint64 index) const;

 private:
  std::string prefix_;
  std::string suffix_;
  bool numbered_ = false;
  bool zero_pad_ = false;
  int width_ = 0;
};

// Whether the sink can start writing `location` (NULL: no files). FALSE
// after posting an element error on `sink`: RESOURCE/SETTINGS if the
// pattern does not parse (saying why), RESOURCE/NOT_FOUND if the directory
// of the first file does not exist.
gboolean gst_cuda_prep_npy_check_location(GstElement *sink, const gchar *location);

// Writes the tensor of `buffer` (image or clip, at its rank; N = the items
// holding frames) to `path` as a .npy file: copies it to the host with
// gst_cuda_prep_tensor_copy_to_host(), the host waiting, then writes the
// file. `buffer` holds one cudaprep memory with its tensor meta. FALSE after
// posting an element error on `sink`: a failed CUDA call as CUDAPREP_CHECK
// posts it; a file that cannot be written (RESOURCE/WRITE) named with
// `location`, the pattern it came from. A file whose write failed half-way
// stays, truncated.
gboolean gst_cuda_prep_npy_write_tensor(GstElement *sink, GstBuffer *buffer,
                                        const std::string &path, const gchar *location);
