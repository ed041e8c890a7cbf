// What the cudabatch suites (elements/test_batch.cpp and
// test_batch_regions.cpp) share: the chain every source runs through before
// the batch, the batches an appsink receives, and the reference items of a
// single-stream chain.
#pragma once

#include <gst/gst.h>

#include <functional>
#include <random>
#include <string>
#include <vector>

#include <gst/cudaprep/gstcudaprepmeta.h>

namespace cudaprep::test {

// The chain each source runs through before the batch (or, for the
// reference, before cudatensorize batch-size=1) into 96x64 RGB, its upload
// named <appsrc_name>_up; `crop` (cudacrop's properties) crops after the
// upload; `direction` is cudaresize's video-direction (empty: its default).
std::string chain(const std::string &appsrc_name, const std::string &caps,
                  const std::string &crop = "", const std::string &direction = "");

struct Item {
  int source;
  GstClockTime pts;
  std::vector<guint8> bytes;
  int region;
  GstCudaPrepGeometry geometry;
};

struct Batch {
  GstClockTime pts;
  size_t size, filled;
  std::vector<Item> items;  // the filled ones
};

// A random frame of `caps` stamped `pts`, 33 ms long.
GstBuffer *frame_at(const std::string &caps, std::mt19937 &rng, GstClockTime pts);

// The batches `sink` receives until EOS (10 s at most); `inspect` sees
// each tensor first.
std::vector<Batch> pull_batches(GstElement *sink,
                                const std::function<void(const GstCudaPrepTensor *)> &inspect = {});

// The element called `name` in `pipeline` (the pipeline keeps it).
GstElement *by_name(GstElement *pipeline, const std::string &name);

// Items of `caps` frames through the chain (after cudacrop `crop`, if set)
// into cudatensorize batch-size=1, one per frame, in order.
std::vector<Item> single_stream_items(const std::string &caps,
                                      const std::vector<GstBuffer *> &frames,
                                      const std::string &crop = "",
                                      const std::string &direction = "");

}  // namespace cudaprep::test
