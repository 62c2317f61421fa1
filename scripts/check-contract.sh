#!/usr/bin/env bash
# Fails when a formula or constant of the contract (src/contract/, docs/semantics.md) appears
# outside src/contract/: the code -> count rule's bit fields, luminance's divisor and quotient,
# half widening, the float total order, the value swizzle, the source and format codes. Each
# rule below names what it catches; a backend uses the contract's functions instead
# (ih_code_slot, ih_luma_int, ih_half_to_float_bits, ih_value_swizzle, ...).
#   scripts/check-contract.sh [DIR...]   (default: src)
set -uo pipefail
cd "$(dirname "$0")/.."
dirs=("$@")
[ ${#dirs[@]} -eq 0 ] && dirs=(src)

# name | extended regex (grep -E), matched on code with comments removed
rules=(
  "code -> count rule: slot bits (use ih_code_slot)|IH_SLOT_MASK"
  "code -> count rule: extra counter bits (use ih_code_has_extra / ih_code_extra_slot)|IH_EXTRA_SHIFT|>> *30u?\\b"
  "luminance divisor (use ih_luma_int / IH_LUMA_WEIGHT_SUM)|\\b10000(\\.0*)?[uf]?\\b"
  "8-bit luminance quotient (use ih_luma8_quotient)|1\\.0f? */ *10000|0\\.0001f"
  "half widening (use ih_half_to_float_bits)|<< *13\\b|\\b112u?\\b|0x7[Cc]00"
  "float classes and order (use ih_is_nan_bits / ih_float_key)|0x7[Ff]800000"
  "value swizzle (use ih_value_swizzle)|>> *5u?\\) *& *7|\\^ *\\(?[a-z_]+ *>> *5u?\\)"
  "source and format codes (use IH_SRC_LUMA, IH_FMT_*, ih_format_*)|kSrcLuma|define +IH_T_(U8|U16|F16|F32)\\b|define +IH_SRC_LUMA"
)

# Source text without comments (// ... and /* ... */) and string literals (messages may name
# the contract's numbers), with file:line kept.
strip_comments() {
  python3 - "$1" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
def blank(m):
    return re.sub(r"[^\n]", " ", m.group(0))
# strings first so that "//" inside them is not a comment
pattern = re.compile(r'"(?:\\.|[^"\\\n])*"|/\*.*?\*/|//[^\n]*', re.S)
out = pattern.sub(blank, text)
sys.stdout.write(out)
PY
}

failures=0
while IFS= read -r -d '' file; do
  case "$file" in src/contract/*) continue ;; esac
  code=$(strip_comments "$file")
  for rule in "${rules[@]}"; do
    name=${rule%%|*}
    regex=${rule#*|}
    hits=$(printf '%s\n' "$code" | grep -nE -- "$regex" || true)
    if [ -n "$hits" ]; then
      while IFS= read -r hit; do
        echo "$file:${hit%%:*}: $name: $(echo "${hit#*:}" | sed 's/^ *//' | cut -c1-120)"
      done <<< "$hits"
      failures=$((failures + 1))
    fi
  done
done < <(find "${dirs[@]}" -type f \( -name '*.h' -o -name '*.hpp' -o -name '*.cpp' -o -name '*.cu' \
           -o -name '*.cuh' -o -name '*.cl' -o -name '*.comp' \) -print0 | sort -z)

if [ "$failures" -ne 0 ]; then
  echo "check-contract: contract formulas outside src/contract/ ($failures file/rule pairs); use the contract's functions" >&2
  exit 1
fi
echo "check-contract: ok (no contract formula outside src/contract/)"
