#!/usr/bin/env python3
"""Draws sendledger's icons as RGBA PNGs with nothing but the standard library.

    python3 icons/generate.py        # writes the PNGs next to this file

App icon (every size Tauri's bundler asks for): a teal tile with a white send arrow over
three ledger lines. Tray icons, one per state:
  tray-normal.png      teal tile, white send arrow          (nothing needs you)
  tray-attention.png   amber tile, dark exclamation mark    (a send is uncertain)
  tray-stopped.png     red octagon, white bar               (Stop closed the gate)

Shapes are signed-distance tests, supersampled 4x4 per pixel for smooth edges.
"""
import math
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
SS = 4  # supersamples per axis

TEAL = (0x0F, 0x76, 0x6E)
AMBER = (0xF5, 0x9E, 0x0B)
RED = (0xC8, 0x1E, 0x1E)
WHITE = (0xFF, 0xFF, 0xFF)
INK = (0x1F, 0x1A, 0x0A)


def rounded_rect(x, y, x0, y0, x1, y1, r):
    cx = min(max(x, x0 + r), x1 - r)
    cy = min(max(y, y0 + r), y1 - r)
    if x0 + r <= x <= x1 - r or y0 + r <= y <= y1 - r:
        return x0 <= x <= x1 and y0 <= y <= y1
    return (x - cx) ** 2 + (y - cy) ** 2 <= r * r


def polygon(x, y, pts):
    inside = False
    n = len(pts)
    for i in range(n):
        (xa, ya), (xb, yb) = pts[i], pts[(i + 1) % n]
        if (ya > y) != (yb > y) and x < (xb - xa) * (y - ya) / (yb - ya) + xa:
            inside = not inside
    return inside


def capsule(x, y, ax, ay, bx, by, r):
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy)))
    px, py = ax + t * dx, ay + t * dy
    return (x - px) ** 2 + (y - py) ** 2 <= r * r


def octagon(cx, cy, r):
    return [
        (cx + r * math.cos(math.pi / 8 + i * math.pi / 4), cy + r * math.sin(math.pi / 8 + i * math.pi / 4))
        for i in range(8)
    ]


# Each design maps a point in the unit square to a colour or None (transparent); the
# first layer that covers the point wins.
ARROW = [(0.24, 0.30), (0.80, 0.50), (0.24, 0.70), (0.34, 0.50)]


def app_icon(x, y):
    if capsule(x, y, 0.30, 0.78, 0.70, 0.78, 0.035):
        return WHITE
    if polygon(x, y, [(0.26, 0.22), (0.78, 0.44), (0.26, 0.66), (0.35, 0.44)]):
        return WHITE
    if rounded_rect(x, y, 0.06, 0.06, 0.94, 0.94, 0.2):
        return TEAL
    return None


def tray_normal(x, y):
    if polygon(x, y, ARROW):
        return WHITE
    if rounded_rect(x, y, 0.04, 0.04, 0.96, 0.96, 0.22):
        return TEAL
    return None


def tray_attention(x, y):
    if capsule(x, y, 0.5, 0.24, 0.5, 0.56, 0.085) or (x - 0.5) ** 2 + (y - 0.76) ** 2 <= 0.085 ** 2:
        return INK
    if rounded_rect(x, y, 0.04, 0.04, 0.96, 0.96, 0.22):
        return AMBER
    return None


def tray_stopped(x, y):
    if rounded_rect(x, y, 0.24, 0.42, 0.76, 0.58, 0.04):
        return WHITE
    if polygon(x, y, octagon(0.5, 0.5, 0.49)):
        return RED
    return None


def render(design, size):
    rows = []
    for py in range(size):
        row = bytearray([0])  # PNG filter type 0 per scanline
        for px in range(size):
            acc = [0, 0, 0, 0]
            for sy in range(SS):
                for sx in range(SS):
                    c = design((px + (sx + 0.5) / SS) / size, (py + (sy + 0.5) / SS) / size)
                    if c is not None:
                        acc[0] += c[0]
                        acc[1] += c[1]
                        acc[2] += c[2]
                        acc[3] += 1
            n = acc[3]
            if n:
                row += bytes([acc[0] // n, acc[1] // n, acc[2] // n, 255 * n // (SS * SS)])
            else:
                row += bytes(4)
        rows.append(bytes(row))
    return b"".join(rows)


def png(size, raw):
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


OUTPUTS = [
    ("32x32.png", app_icon, 32),
    ("128x128.png", app_icon, 128),
    ("128x128@2x.png", app_icon, 256),
    ("icon.png", app_icon, 512),
    ("tray-normal.png", tray_normal, 64),
    ("tray-attention.png", tray_attention, 64),
    ("tray-stopped.png", tray_stopped, 64),
]

if __name__ == "__main__":
    for name, design, size in OUTPUTS:
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(png(size, render(design, size)))
        print(f"icons/{name} {size}x{size}")
