// What a user sees first when running a gst-launch-1.0 line: the first
// ERROR on the bus, or the parser's error for a line that does not parse or
// link (gst-launch-1.0 stops there with "erroneous pipeline").
#pragma once

#include <gst/gst.h>

#include <string>

namespace cudaprep::test {

struct FirstError {
  std::string message;     // the error's message; empty when the line ran to EOS or timed out
  std::string source;      // the posting element's factory ("cudacrop"), "gst_parse_launch" or ""
  std::string debug;       // the error's debug text
  bool timed_out = false;  // neither an ERROR nor EOS came
};

// Parses `line` as gst-launch-1.0 does, sets it PLAYING and waits (at most
// `timeout_ms`) for the first ERROR or EOS.
FirstError first_error(const std::string &line, int timeout_ms = 10000);

// Sets `pipeline` PLAYING and waits (at most `timeout_ms`) for the first
// ERROR or EOS; the caller stops it.
FirstError play_until_first_error(GstElement *pipeline, int timeout_ms);

}  // namespace cudaprep::test
