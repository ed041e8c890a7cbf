"""PIL's Image.resize of a raw 8-bit RGB frame, for test_resize_reference_pil:

    pil_resize.py IN WIDTH HEIGHT OUT OUT_WIDTH OUT_HEIGHT bilinear|bicubic

reads WIDTH x HEIGHT x 3 bytes from IN and writes the resized frame's bytes
to OUT. PIL always antialiases bilinear and bicubic downscales.
"""
import sys

from PIL import Image

FILTERS = {"bilinear": Image.BILINEAR, "bicubic": Image.BICUBIC}


def main(argv):
    src, width, height, dst, out_width, out_height, method = argv[1:8]
    with open(src, "rb") as f:
        image = Image.frombytes("RGB", (int(width), int(height)), f.read())
    resized = image.resize((int(out_width), int(out_height)), FILTERS[method])
    with open(dst, "wb") as f:
        f.write(resized.tobytes())


if __name__ == "__main__":
    main(sys.argv)
