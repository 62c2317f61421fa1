/*
 * Tiles (docs/semantics.md, "Regions and tiles"): a length of L pixels cut into n tiles. Every
 * tile but the last is floor(L / n) pixels wide; the last (right, bottom) one also takes the
 * remainder L - n * floor(L / n). n <= L, so no tile is empty. Part of the contract (contract.h).
 */
#ifndef IMGHIST_CONTRACT_REGIONS_H
#define IMGHIST_CONTRACT_REGIONS_H

#include "contract/lang.h"

/* The width of every tile but the last. */
IH_FN IH_U32 ih_tile_span(IH_U32 length, IH_U32 tiles) { return length / tiles; }

/* First pixel of tile i (0 <= i < tiles). */
IH_FN IH_U32 ih_tile_start(IH_U32 i, IH_U32 length, IH_U32 tiles) { return i * ih_tile_span(length, tiles); }

/* Pixels in tile i: the span, or for the last tile the span and the remainder. */
IH_FN IH_U32 ih_tile_length(IH_U32 i, IH_U32 length, IH_U32 tiles)
{
    return i + IH_U(1) == tiles ? length - ih_tile_start(i, length, tiles) : ih_tile_span(length, tiles);
}

/* The tile that pixel p (0 <= p < length) falls in. */
IH_FN IH_U32 ih_tile_of(IH_U32 p, IH_U32 length, IH_U32 tiles)
{
    IH_U32 t = p / ih_tile_span(length, tiles);
    return t < tiles ? t : tiles - IH_U(1);
}

#endif /* IMGHIST_CONTRACT_REGIONS_H */
