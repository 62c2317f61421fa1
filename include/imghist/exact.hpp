// Exact numbers for exact statistics: every finite sample value imghist counts (an 8- or
// 16-bit integer, a half, a float, a float luminance) is a dyadic rational m * 2^e, and so are
// their sums and sums of squares. ExactNumber holds one without rounding, adds and multiplies
// exactly, prints it as an exact decimal and reads that decimal back (docs/semantics.md,
// "Sample statistics").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace imghist {

class ExactNumber {
public:
    ExactNumber() = default;  // zero
    // The exact value of a finite double (throws InvalidArgument for NaN and infinities).
    static ExactNumber from_double(double value);
    static ExactNumber from_integer(std::int64_t value);
    // m * 2^exponent.
    static ExactNumber from_parts(bool negative, unsigned __int128 magnitude, std::int64_t exponent);
    // An exact decimal as to_string() writes it ("-12.375", "3e-2" is not accepted): nullopt
    // when the text is not one, or its value is not a dyadic rational (0.1 is not).
    static std::optional<ExactNumber> parse(std::string_view decimal);

    // The exact decimal: "-12.375", "0", "1267650600228229401496703205376"; no exponent, no
    // trailing zeros after the point (a dyadic rational's decimal always ends).
    std::string to_string() const;
    // The nearest double, ties to even: the value rounded once.
    double to_double() const;

    bool is_zero() const { return magnitude_.empty(); }
    bool negative() const { return negative_; }
    ExactNumber& operator+=(const ExactNumber& other);
    friend ExactNumber operator+(ExactNumber a, const ExactNumber& b) { return a += b; }
    friend ExactNumber operator*(const ExactNumber& a, const ExactNumber& b);
    ExactNumber operator-() const;
    // Compares values (the representation is canonical: an odd or zero magnitude).
    bool operator==(const ExactNumber&) const = default;

    // The representation: value = (-1)^negative * magnitude * 2^exponent, magnitude in
    // little-endian 32-bit limbs, odd (or empty for zero, with exponent 0).
    const std::vector<std::uint32_t>& magnitude_limbs() const { return magnitude_; }
    std::int64_t exponent() const { return exponent_; }
    static ExactNumber from_representation(bool negative, std::vector<std::uint32_t> magnitude, std::int64_t exponent);

private:
    void normalise();

    bool negative_ = false;
    std::vector<std::uint32_t> magnitude_;
    std::int64_t exponent_ = 0;
};

// x / d and sqrt(x / d) of exact numbers (d > 0; x >= 0 for the root), rounded once to the
// nearest double, ties to even: the rule of every derived sample statistic.
double round_quotient(const ExactNumber& x, const ExactNumber& d);
double round_sqrt_quotient(const ExactNumber& x, const ExactNumber& d);

}  // namespace imghist
