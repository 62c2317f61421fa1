#include "core/exact/big_integer.hpp"

#include <algorithm>
#include <stdexcept>

namespace imghist::exact {

BigInteger::BigInteger(std::uint64_t value) {
    while (value != 0) {
        limbs_.push_back(std::uint32_t(value));
        value >>= 32;
    }
}

BigInteger BigInteger::from_u128(unsigned __int128 value) {
    BigInteger r;
    while (value != 0) {
        r.limbs_.push_back(std::uint32_t(value));
        value >>= 32;
    }
    return r;
}

BigInteger BigInteger::from_limbs(std::vector<std::uint32_t> limbs) {
    BigInteger r;
    r.limbs_ = std::move(limbs);
    r.trim();
    return r;
}

void BigInteger::trim() {
    while (!limbs_.empty() && limbs_.back() == 0) limbs_.pop_back();
}

std::uint64_t BigInteger::bit_length() const {
    if (limbs_.empty()) return 0;
    return 32 * (limbs_.size() - 1) + (32 - std::uint64_t(__builtin_clz(limbs_.back())));
}

bool BigInteger::bit(std::uint64_t index) const {
    const std::uint64_t limb = index / 32;
    return limb < limbs_.size() && ((limbs_[limb] >> (index % 32)) & 1u) != 0;
}

bool BigInteger::any_bit_below(std::uint64_t index) const {
    const std::uint64_t whole = std::min<std::uint64_t>(index / 32, limbs_.size());
    for (std::uint64_t i = 0; i < whole; ++i)
        if (limbs_[i] != 0) return true;
    if (whole < limbs_.size() && index % 32 != 0) return (limbs_[whole] & ((1u << (index % 32)) - 1)) != 0;
    return false;
}

std::uint64_t BigInteger::low64() const {
    std::uint64_t r = limbs_.empty() ? 0 : limbs_[0];
    if (limbs_.size() > 1) r |= std::uint64_t(limbs_[1]) << 32;
    return r;
}

std::uint64_t BigInteger::trailing_zeros() const {
    for (std::size_t i = 0; i < limbs_.size(); ++i)
        if (limbs_[i] != 0) return 32 * i + std::uint64_t(__builtin_ctz(limbs_[i]));
    return 0;
}

BigInteger& BigInteger::operator+=(const BigInteger& other) {
    if (limbs_.size() < other.limbs_.size()) limbs_.resize(other.limbs_.size(), 0);
    std::uint64_t carry = 0;
    for (std::size_t i = 0; i < limbs_.size(); ++i) {
        const std::uint64_t sum = std::uint64_t(limbs_[i]) + (i < other.limbs_.size() ? other.limbs_[i] : 0) + carry;
        limbs_[i] = std::uint32_t(sum);
        carry = sum >> 32;
        if (carry == 0 && i >= other.limbs_.size()) break;
    }
    if (carry != 0) limbs_.push_back(std::uint32_t(carry));
    return *this;
}

BigInteger& BigInteger::operator-=(const BigInteger& other) {
    if (*this < other) throw std::domain_error("BigInteger: negative difference");
    std::int64_t borrow = 0;
    for (std::size_t i = 0; i < limbs_.size(); ++i) {
        std::int64_t d = std::int64_t(limbs_[i]) - (i < other.limbs_.size() ? other.limbs_[i] : 0) - borrow;
        borrow = d < 0;
        if (d < 0) d += std::int64_t(1) << 32;
        limbs_[i] = std::uint32_t(d);
        if (borrow == 0 && i >= other.limbs_.size()) break;
    }
    trim();
    return *this;
}

BigInteger& BigInteger::operator<<=(std::uint64_t bits) {
    if (limbs_.empty() || bits == 0) return *this;
    const std::size_t whole = bits / 32;
    const unsigned part = unsigned(bits % 32);
    if (part != 0) {
        std::uint32_t carry = 0;
        for (std::uint32_t& limb : limbs_) {
            const std::uint32_t next = limb >> (32 - part);
            limb = (limb << part) | carry;
            carry = next;
        }
        if (carry != 0) limbs_.push_back(carry);
    }
    limbs_.insert(limbs_.begin(), whole, 0);
    return *this;
}

BigInteger& BigInteger::operator>>=(std::uint64_t bits) {
    const std::size_t whole = bits / 32;
    if (whole >= limbs_.size()) {
        limbs_.clear();
        return *this;
    }
    limbs_.erase(limbs_.begin(), limbs_.begin() + std::ptrdiff_t(whole));
    const unsigned part = unsigned(bits % 32);
    if (part != 0) {
        for (std::size_t i = 0; i < limbs_.size(); ++i) {
            const std::uint32_t high = i + 1 < limbs_.size() ? limbs_[i + 1] << (32 - part) : 0;
            limbs_[i] = (limbs_[i] >> part) | high;
        }
    }
    trim();
    return *this;
}

BigInteger operator*(const BigInteger& a, const BigInteger& b) {
    if (a.is_zero() || b.is_zero()) return {};
    std::vector<std::uint32_t> out(a.limbs_.size() + b.limbs_.size(), 0);
    for (std::size_t i = 0; i < a.limbs_.size(); ++i) {
        std::uint64_t carry = 0;
        for (std::size_t j = 0; j < b.limbs_.size(); ++j) {
            const std::uint64_t t = std::uint64_t(a.limbs_[i]) * b.limbs_[j] + out[i + j] + carry;
            out[i + j] = std::uint32_t(t);
            carry = t >> 32;
        }
        out[i + b.limbs_.size()] = std::uint32_t(carry);
    }
    return BigInteger::from_limbs(std::move(out));
}

// Shift-and-subtract, one quotient bit at a time: a few hundred bits, a few times per channel.
std::pair<BigInteger, BigInteger> BigInteger::divide(const BigInteger& dividend, const BigInteger& divisor) {
    if (divisor.is_zero()) throw std::domain_error("BigInteger: division by zero");
    if (dividend < divisor) return {BigInteger(), dividend};
    const std::uint64_t shift = dividend.bit_length() - divisor.bit_length();
    BigInteger remainder = dividend, quotient, shifted = divisor << shift;
    quotient.limbs_.assign(shift / 32 + 1, 0);
    for (std::uint64_t i = shift + 1; i-- > 0;) {
        if (remainder >= shifted) {
            remainder -= shifted;
            quotient.limbs_[i / 32] |= 1u << (i % 32);
        }
        shifted >>= 1;
    }
    quotient.trim();
    return {std::move(quotient), std::move(remainder)};
}

BigInteger BigInteger::isqrt(const BigInteger& x) {
    if (x.is_zero()) return {};
    // Newton's iteration from above: x0 = 2^ceil(bits / 2) >= sqrt(x), decreasing to the floor.
    BigInteger r = BigInteger(1) << ((x.bit_length() + 1) / 2);
    for (;;) {
        BigInteger next = (r + divide(x, r).first) >> 1;
        if (next >= r) return r;
        r = std::move(next);
    }
}

BigInteger BigInteger::power(std::uint32_t base, std::uint64_t exponent) {
    BigInteger result(1), square(base);
    for (; exponent != 0; exponent >>= 1) {
        if (exponent & 1) result = result * square;
        if (exponent > 1) square = square * square;
    }
    return result;
}

void BigInteger::multiply_add(std::uint32_t factor, std::uint32_t addend) {
    std::uint64_t carry = addend;
    for (std::uint32_t& limb : limbs_) {
        const std::uint64_t t = std::uint64_t(limb) * factor + carry;
        limb = std::uint32_t(t);
        carry = t >> 32;
    }
    if (carry != 0) limbs_.push_back(std::uint32_t(carry));
}

std::uint32_t BigInteger::divide_small(std::uint32_t divisor) {
    std::uint64_t remainder = 0;
    for (std::size_t i = limbs_.size(); i-- > 0;) {
        const std::uint64_t t = (remainder << 32) | limbs_[i];
        limbs_[i] = std::uint32_t(t / divisor);
        remainder = t % divisor;
    }
    trim();
    return std::uint32_t(remainder);
}

std::string BigInteger::to_decimal() const {
    if (is_zero()) return "0";
    BigInteger rest = *this;
    std::string digits;
    while (!rest.is_zero()) {
        std::uint32_t chunk = rest.divide_small(1000000000u);
        for (int i = 0; i < 9; ++i, chunk /= 10) digits.push_back(char('0' + chunk % 10));
    }
    while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
    return {digits.rbegin(), digits.rend()};
}

BigInteger BigInteger::from_decimal(std::string_view digits) {
    BigInteger r;
    for (const char c : digits) {
        if (c < '0' || c > '9') throw std::invalid_argument("BigInteger: not a decimal digit");
        r.multiply_add(10, std::uint32_t(c - '0'));
    }
    return r;
}

std::strong_ordering operator<=>(const BigInteger& a, const BigInteger& b) {
    if (a.limbs_.size() != b.limbs_.size()) return a.limbs_.size() <=> b.limbs_.size();
    for (std::size_t i = a.limbs_.size(); i-- > 0;)
        if (a.limbs_[i] != b.limbs_[i]) return a.limbs_[i] <=> b.limbs_[i];
    return std::strong_ordering::equal;
}

}  // namespace imghist::exact
