// What the docs-commands suite checks of a pipeline description without
// running it: the names it uses exist (elements, their properties and their
// pads' properties, with values of the property's type), and it parses as
// gst-launch-1.0 parses it.
#pragma once

#include <string>
#include <vector>

namespace cudaprep::docs {

struct PropertyUse {
  std::string pad;  // "sink_0" for sink_0::regions=..., else empty
  std::string name;
  std::string value;
};

struct ElementUse {
  std::string factory;
  std::string name;  // its name= property, if given
  std::vector<PropertyUse> properties;
};

// The elements that the words of a description name, with the properties
// each is given. Caps, links ("!"), references ("b.sink_0", "b.") and
// placeholders ("...", brackets of optional parts) are skipped; properties
// after a placeholder belong to no known element and are skipped too.
std::vector<ElementUse> elements_of(const std::vector<std::string> &words);

// A description written as one string, split into words as gst_parse reads
// it (quotes as the shell's).
bool description_words(const std::string &description, std::vector<std::string> *words,
                       std::string *error);

// One sentence per problem with the names `uses` gives: an element that
// does not exist, a property the element (or its pad) does not have, a
// value that is not one of the property's (placeholders and empty values
// are not checked), a `chain` description (cudaprepsrc) that does not
// parse. Factories in `gpu_only` may be missing (nvcodec registers its
// decoders only where a GPU is): each missing one is a note instead.
std::vector<std::string> check_names(const std::vector<ElementUse> &uses,
                                     const std::vector<std::string> &gpu_only,
                                     std::vector<std::string> *notes);

// Parses `words` (a gst-launch-1.0 description, options removed) as
// gst-launch-1.0 does (gst_parse_launchv; missing elements, properties and
// links are errors) and checks that every pad property was applied: a
// pad::property of a pad that exists only once linked is otherwise
// forgotten without a word.
std::vector<std::string> check_parse(const std::vector<std::string> &words);

// The string literals of C or Python code (adjacent ones joined, escapes
// resolved) that are pipeline descriptions: they contain " ! ".
std::vector<std::string> descriptions_in_code(const std::string &code);

}  // namespace cudaprep::docs
