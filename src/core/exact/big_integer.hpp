// Unsigned integers of any size: what exact sums, their products and the once-rounded
// quotients and square roots of the sample statistics need (docs/semantics.md, "Sample
// statistics"). Plain schoolbook arithmetic: the numbers have at most a few hundred bits and
// are formed a few times per channel, never per sample.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace imghist::exact {

class BigInteger {
public:
    BigInteger() = default;
    BigInteger(std::uint64_t value);  // NOLINT(google-explicit-constructor): integers convert
    static BigInteger from_u128(unsigned __int128 value);

    bool is_zero() const { return limbs_.empty(); }
    // Bits needed to write the number (0 for zero).
    std::uint64_t bit_length() const;
    bool bit(std::uint64_t index) const;
    // Whether any of the bits below `index` is set.
    bool any_bit_below(std::uint64_t index) const;
    // The lowest 64 bits.
    std::uint64_t low64() const;
    // Trailing zero bits (0 for zero).
    std::uint64_t trailing_zeros() const;

    BigInteger& operator+=(const BigInteger& other);
    // Requires *this >= other.
    BigInteger& operator-=(const BigInteger& other);
    BigInteger& operator<<=(std::uint64_t bits);
    BigInteger& operator>>=(std::uint64_t bits);
    friend BigInteger operator+(BigInteger a, const BigInteger& b) { return a += b; }
    friend BigInteger operator-(BigInteger a, const BigInteger& b) { return a -= b; }
    friend BigInteger operator<<(BigInteger a, std::uint64_t bits) { return a <<= bits; }
    friend BigInteger operator>>(BigInteger a, std::uint64_t bits) { return a >>= bits; }
    friend BigInteger operator*(const BigInteger& a, const BigInteger& b);
    // Quotient and remainder; throws std::domain_error for a zero divisor.
    static std::pair<BigInteger, BigInteger> divide(const BigInteger& dividend, const BigInteger& divisor);
    // floor(sqrt(x)).
    static BigInteger isqrt(const BigInteger& x);
    static BigInteger power(std::uint32_t base, std::uint64_t exponent);

    std::string to_decimal() const;
    // Decimal digits only; empty input is zero.
    static BigInteger from_decimal(std::string_view digits);

    friend std::strong_ordering operator<=>(const BigInteger& a, const BigInteger& b);
    friend bool operator==(const BigInteger& a, const BigInteger& b) = default;

    const std::vector<std::uint32_t>& limbs() const { return limbs_; }
    static BigInteger from_limbs(std::vector<std::uint32_t> limbs);

private:
    void trim();
    // *this = *this * factor + addend, for small factors (decimal parsing).
    void multiply_add(std::uint32_t factor, std::uint32_t addend);
    // *this /= divisor, returning the remainder (decimal printing).
    std::uint32_t divide_small(std::uint32_t divisor);

    std::vector<std::uint32_t> limbs_;  // little-endian base 2^32, no leading zero limb
};

}  // namespace imghist::exact
