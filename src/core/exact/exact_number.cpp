#include "imghist/exact.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "core/exact/big_integer.hpp"
#include "imghist/error.hpp"

namespace imghist {

using exact::BigInteger;

namespace {
BigInteger magnitude_of(const ExactNumber& x) { return BigInteger::from_limbs(x.magnitude_limbs()); }

// x's magnitude shifted so that its exponent is `exponent` (<= x.exponent()).
BigInteger aligned(const ExactNumber& x, std::int64_t exponent) {
    return magnitude_of(x) << std::uint64_t(x.exponent() - exponent);
}

// Rounds q * 2^scale (q > 0, with `sticky` saying that bits below q's were dropped, none zero)
// to the nearest double, ties to even: the one rounding of every statistic.
double round_to_double(const BigInteger& q, bool sticky, std::int64_t scale) {
    const std::uint64_t bits = q.bit_length();
    if (bits <= 53) return std::ldexp(double(q.low64()), int(std::clamp<std::int64_t>(scale, -2000, 2000)));
    const std::uint64_t drop = bits - 53;
    std::uint64_t kept = (q >> drop).low64();
    const bool half = q.bit(drop - 1);
    const bool rest = sticky || q.any_bit_below(drop - 1);
    if (half && (rest || (kept & 1))) ++kept;  // 2^53 after a carry is still exact in a double
    return std::ldexp(double(kept), int(std::clamp<std::int64_t>(scale + std::int64_t(drop), -2000, 2000)));
}
}  // namespace

void ExactNumber::normalise() {
    BigInteger m = BigInteger::from_limbs(std::move(magnitude_));
    if (m.is_zero()) {
        negative_ = false;
        exponent_ = 0;
    } else {
        const std::uint64_t zeros = m.trailing_zeros();
        m >>= zeros;
        exponent_ += std::int64_t(zeros);
    }
    magnitude_ = m.limbs();
}

ExactNumber ExactNumber::from_representation(bool negative, std::vector<std::uint32_t> magnitude, std::int64_t exponent) {
    ExactNumber r;
    r.negative_ = negative;
    r.magnitude_ = std::move(magnitude);
    r.exponent_ = exponent;
    r.normalise();
    return r;
}

ExactNumber ExactNumber::from_parts(bool negative, unsigned __int128 magnitude, std::int64_t exponent) {
    return from_representation(negative, BigInteger::from_u128(magnitude).limbs(), exponent);
}

ExactNumber ExactNumber::from_integer(std::int64_t value) {
    const bool negative = value < 0;
    const auto magnitude = negative ? std::uint64_t(0) - std::uint64_t(value) : std::uint64_t(value);
    return from_parts(negative, magnitude, 0);
}

ExactNumber ExactNumber::from_double(double value) {
    if (!std::isfinite(value)) throw InvalidArgument("an exact number must be finite");
    const auto bits = std::bit_cast<std::uint64_t>(value);
    const auto biased = std::int64_t((bits >> 52) & 0x7FF);
    std::uint64_t mantissa = bits & ((std::uint64_t(1) << 52) - 1);
    if (biased != 0) mantissa |= std::uint64_t(1) << 52;
    return from_parts((bits >> 63) != 0, mantissa, std::max<std::int64_t>(biased, 1) - 1075);
}

ExactNumber& ExactNumber::operator+=(const ExactNumber& other) {
    if (other.is_zero()) return *this;
    if (is_zero()) return *this = other;
    const std::int64_t e = std::min(exponent_, other.exponent_);
    BigInteger a = aligned(*this, e), b = aligned(other, e);
    bool negative = negative_;
    if (negative_ == other.negative_) a += b;
    else if (a >= b) a -= b;
    else {
        a = b - a;
        negative = other.negative_;
    }
    *this = from_representation(negative, a.limbs(), e);
    return *this;
}

ExactNumber operator*(const ExactNumber& a, const ExactNumber& b) {
    return ExactNumber::from_representation(a.negative_ != b.negative_, (magnitude_of(a) * magnitude_of(b)).limbs(),
                                            a.exponent_ + b.exponent_);
}

ExactNumber ExactNumber::operator-() const {
    ExactNumber r = *this;
    if (!r.is_zero()) r.negative_ = !r.negative_;
    return r;
}

double ExactNumber::to_double() const {
    if (is_zero()) return 0.0;
    const double magnitude = round_to_double(magnitude_of(*this), false, exponent_);
    return negative_ ? -magnitude : magnitude;
}

std::string ExactNumber::to_string() const {
    std::string sign = negative_ ? "-" : "";
    if (exponent_ >= 0) return sign + (magnitude_of(*this) << std::uint64_t(exponent_)).to_decimal();
    // m * 2^-k = m * 5^k / 10^k: the digits of m * 5^k with the point k places from the right.
    const auto places = std::size_t(-exponent_);
    std::string digits = (magnitude_of(*this) * BigInteger::power(5, places)).to_decimal();
    if (digits.size() <= places) digits.insert(0, places - digits.size() + 1, '0');
    digits.insert(digits.size() - places, 1, '.');
    while (digits.back() == '0') digits.pop_back();  // m is odd: the last digit is 5, never 0
    return sign + digits;
}

std::optional<ExactNumber> ExactNumber::parse(std::string_view text) {
    bool negative = false;
    if (!text.empty() && text.front() == '-') {
        negative = true;
        text.remove_prefix(1);
    }
    const std::size_t point = text.find('.');
    const std::string_view whole = text.substr(0, point);
    const std::string_view fraction = point == std::string_view::npos ? std::string_view() : text.substr(point + 1);
    const auto digits = [](std::string_view s) { return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }); };
    // Exact decimals only, of bounded size (a report's sum has at most a few hundred digits).
    if (whole.empty() || !digits(whole) || !digits(fraction) || (point != std::string_view::npos && fraction.empty()) ||
        text.size() > 4096)
        return std::nullopt;
    // n / 10^k = (n / 5^k) * 2^-k: dyadic exactly when 5^k divides n.
    const BigInteger n = BigInteger::from_decimal(std::string(whole) + std::string(fraction));
    const auto [m, remainder] = BigInteger::divide(n, BigInteger::power(5, fraction.size()));
    if (!remainder.is_zero()) return std::nullopt;
    return from_representation(negative, m.limbs(), -std::int64_t(fraction.size()));
}

double round_quotient(const ExactNumber& x, const ExactNumber& d) {
    if (d.is_zero() || d.negative()) throw InvalidArgument("round_quotient: the divisor must be positive");
    if (x.is_zero()) return 0.0;
    // q = floor(|x| * 2^k / d) with 55 or more bits, and whether the division left a remainder.
    BigInteger a = magnitude_of(x), b = magnitude_of(d);
    const std::int64_t k = 56 - (std::int64_t(a.bit_length()) - std::int64_t(b.bit_length()));
    if (k > 0) a <<= std::uint64_t(k);
    else b <<= std::uint64_t(-k);
    const auto [q, r] = BigInteger::divide(a, b);
    const double magnitude = round_to_double(q, !r.is_zero(), x.exponent() - d.exponent() - k);
    return x.negative() ? -magnitude : magnitude;
}

double round_sqrt_quotient(const ExactNumber& x, const ExactNumber& d) {
    if (d.is_zero() || d.negative() || x.negative()) throw InvalidArgument("round_sqrt_quotient: needs x >= 0 and d > 0");
    if (x.is_zero()) return 0.0;
    // x / d = (a / b) * 2^e with an even e, so that sqrt(x / d) = sqrt(a * 4^j / b) * 2^(e/2 - j).
    BigInteger a = magnitude_of(x), b = magnitude_of(d);
    std::int64_t e = x.exponent() - d.exponent();
    if (e % 2 != 0) {
        a <<= 1;
        --e;
    }
    // A quotient of about 2 * 56 bits gives a root of 56 or more: 53 and the rounding bits.
    constexpr std::int64_t kQuotientBits = 2 * 56;
    const std::int64_t j = (kQuotientBits - (std::int64_t(a.bit_length()) - std::int64_t(b.bit_length()))) / 2 + 1;
    if (j > 0) a <<= std::uint64_t(2 * j);
    else b <<= std::uint64_t(-2 * j);
    const auto [q, r] = BigInteger::divide(a, b);
    const BigInteger s = BigInteger::isqrt(q);  // floor(sqrt(a / b)): floor of a floor's root is the root's floor
    const bool exact = r.is_zero() && s * s == q;
    return round_to_double(s, !exact, e / 2 - j);
}

}  // namespace imghist
