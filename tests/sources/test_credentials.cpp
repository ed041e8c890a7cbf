// gst_cuda_prep_mask_credentials() and gst_cuda_prep_split_uri_credentials()
// (sources/gstcudaprepcredentials.h): what cudaprepsrc prints of a URI, and
// what it hands its children. The expected strings follow the definition in
// the header: user:***@ (or ***@ for a user information without ':'), and
// the values of secret query parameters masked; everything else unchanged.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "sources/gstcudaprepcredentials.h"

namespace {

std::string mask(const char *text) {
  return gst_cuda_prep_mask_credentials(text);
}

TEST(MaskCredentials, UserAndPassword) {
  EXPECT_EQ(mask("rtsp://admin:hunter2@cam1.local:554/stream1"),
            "rtsp://admin:***@cam1.local:554/stream1");
  EXPECT_EQ(mask("rtsp://admin:hunter2@cam1"), "rtsp://admin:***@cam1");
}

TEST(MaskCredentials, NoUserInformationIsUnchanged) {
  for (const char *uri : {"rtsp://cam1.local:554/stream1", "file:///tmp/a%40b.mp4",
                          "rtsp://[::1]:8554/test", "https://host/a@b", "not a uri", ""})
    EXPECT_EQ(mask(uri), uri);
}

TEST(MaskCredentials, AUserWithoutPasswordMayBeATokenAndIsMaskedWhole) {
  EXPECT_EQ(mask("https://ghp_abcdef@example.com/x"), "https://***@example.com/x");
}

TEST(MaskCredentials, EmptyUserWithPassword) {
  EXPECT_EQ(mask("rtsp://:pw@host/"), "rtsp://:***@host/");
}

TEST(MaskCredentials, AtSignInThePassword) {
  EXPECT_EQ(mask("rtsp://user:p%40ss@host/s"), "rtsp://user:***@host/s");  // encoded
  EXPECT_EQ(mask("rtsp://user:p@ss@host/s"), "rtsp://user:***@host/s");    // not encoded
  EXPECT_EQ(mask("rtsp://user:p:a:ss@host/s"), "rtsp://user:***@host/s");  // colons after the first
}

TEST(MaskCredentials, Ipv6Hosts) {
  EXPECT_EQ(mask("rtsp://user:pw@[::1]:8554/test"), "rtsp://user:***@[::1]:8554/test");
  EXPECT_EQ(mask("rtsp://user:pw@[fe80::1%25eth0]/s"), "rtsp://user:***@[fe80::1%25eth0]/s");
  EXPECT_EQ(mask("rtsp://user@[::1]:8554/test"), "rtsp://***@[::1]:8554/test");
}

TEST(MaskCredentials, QueryStrings) {
  EXPECT_EQ(mask("rtsp://u:pw@host/s?channel=1&subtype=0"),
            "rtsp://u:***@host/s?channel=1&subtype=0");
  EXPECT_EQ(mask("http://cam/video.cgi?user=admin&password=hunter2&res=hd"),
            "http://cam/video.cgi?user=admin&password=***&res=hd");
  EXPECT_EQ(mask("http://cam/v?PWD=x;Token=y#frag?password=z"),
            "http://cam/v?PWD=***;Token=***#frag?password=z");
  // A '?' ends the authority: what follows it is not user information.
  EXPECT_EQ(mask("rtsp://host?a=b@c"), "rtsp://host?a=b@c");
}

TEST(MaskCredentials, UrisQuotedInMessages) {
  EXPECT_EQ(mask("Could not open 'rtsp://admin:pw@10.0.0.5/live' (rtsp://b:c@d), retrying"),
            "Could not open 'rtsp://admin:***@10.0.0.5/live' (rtsp://b:***@d), retrying");
  EXPECT_EQ(mask("uri=rtsp://a:b@h\nnext=http://x:y@z/"),
            "uri=rtsp://a:***@h\nnext=http://x:***@z/");
  EXPECT_EQ(mask(nullptr), "");
}

// Random printable passwords (any character a URI's user information can
// hold unencoded, and some that it cannot): never in the masked text, and
// the host and path kept.
TEST(MaskCredentials, RandomPasswordsNeverSurvive) {
  const std::string alphabet =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:%@";
  std::mt19937 rng(26);
  std::uniform_int_distribution<size_t> pick(0, alphabet.size() - 1), length(6, 24);
  for (int i = 0; i < 2000; ++i) {
    std::string password;
    for (size_t n = length(rng); password.size() < n;) {
      const char c = alphabet[pick(rng)];
      if (c != '\'') password += c;  // a quote ends a URI quoted in text
    }
    const std::string uri = "rtsp://operator:" + password + "@cam7.example:554/ch1?x=1";
    const std::string masked = mask(uri.c_str());
    EXPECT_EQ(masked, "rtsp://operator:***@cam7.example:554/ch1?x=1") << uri;
  }
}

TEST(SplitCredentials, UserAndPasswordAreDecodedAndRemovedFromTheUri) {
  const GstCudaPrepUriCredentials split =
      gst_cuda_prep_split_uri_credentials("rtsp://us%3Aer:p%40ss:w@[::1]:8554/test?a=1");
  EXPECT_TRUE(split.has_user_info);
  EXPECT_EQ(split.uri, "rtsp://[::1]:8554/test?a=1");
  EXPECT_EQ(split.user, "us:er");
  EXPECT_EQ(split.password, "p@ss:w");
}

TEST(SplitCredentials, NoUserInformation) {
  for (const char *uri : {"rtsp://cam/s", "file:///tmp/x.mp4", "rtsp://host?a=b@c"}) {
    const GstCudaPrepUriCredentials split = gst_cuda_prep_split_uri_credentials(uri);
    EXPECT_FALSE(split.has_user_info) << uri;
    EXPECT_EQ(split.uri, uri);
    EXPECT_EQ(split.user, "");
    EXPECT_EQ(split.password, "");
  }
}

TEST(SplitCredentials, UserOnly) {
  const GstCudaPrepUriCredentials split =
      gst_cuda_prep_split_uri_credentials("rtsp://viewer@cam/s");
  EXPECT_TRUE(split.has_user_info);
  EXPECT_EQ(split.uri, "rtsp://cam/s");
  EXPECT_EQ(split.user, "viewer");
  EXPECT_EQ(split.password, "");
}

}  // namespace
