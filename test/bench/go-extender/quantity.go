// Kubernetes quantities ("500m", "1.5", "128Mi", "32847096Ki", "1e3") parsed exactly with math/big and rounded up
// once, the way apimachinery's Quantity.MilliValue / Value round. Standard library only.
package main

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
)

// qty is a quantity as it appears in JSON: normally a string, a bare number tolerated.
type qty string

func (q *qty) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		*q = qty(s)
		return nil
	}
	*q = qty(string(data))
	return nil
}

var binarySuffixes = map[string]int64{"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40, "Pi": 1 << 50, "Ei": 1 << 60}

var decimalSuffixes = map[string]int{"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}

// parseQuantity returns the exact value of a quantity in base units (cores, bytes, pods).
func parseQuantity(text string) (*big.Rat, error) {
	s := strings.TrimSpace(text)
	end := 0
	for end < len(s) && (s[end] == '+' || s[end] == '-' || s[end] == '.' || (s[end] >= '0' && s[end] <= '9')) {
		end++
	}
	number, suffix := s[:end], s[end:]
	if number == "" {
		return nil, fmt.Errorf("quantity %q has no number", text)
	}
	value, ok := new(big.Rat).SetString(number)
	if !ok {
		return nil, fmt.Errorf("quantity %q: bad number", text)
	}
	if factor, found := binarySuffixes[suffix]; found {
		return value.Mul(value, new(big.Rat).SetInt64(factor)), nil
	}
	exponent, found := decimalSuffixes[suffix]
	if !found && len(suffix) > 1 && (suffix[0] == 'e' || suffix[0] == 'E') {
		var e int
		if _, err := fmt.Sscanf(suffix[1:], "%d", &e); err != nil || fmt.Sprint(e) != strings.TrimPrefix(suffix[1:], "+") {
			return nil, fmt.Errorf("quantity %q: bad exponent", text)
		}
		exponent, found = e, true
	}
	if !found {
		return nil, fmt.Errorf("quantity %q: unknown suffix %q", text, suffix)
	}
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(exponent))), nil)
	if exponent >= 0 {
		return value.Mul(value, new(big.Rat).SetInt(scale)), nil
	}
	return value.Quo(value, new(big.Rat).SetInt(scale)), nil
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// ceilScaled rounds value × 10^digits up to an integer (toward +inf), as Quantity.ScaledValue does.
func ceilScaled(value *big.Rat, digits int) int64 {
	scaled := new(big.Rat).Mul(value, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(digits)), nil)))
	num, den := scaled.Num(), scaled.Denom()
	quotient, remainder := new(big.Int).QuoRem(num, den, new(big.Int))
	if remainder.Sign() > 0 {
		quotient.Add(quotient, big.NewInt(1))
	}
	return quotient.Int64()
}

// amounts are exact per-resource sums before the final rounding.
type amounts map[string]*big.Rat

func (a amounts) add(name string, value *big.Rat) {
	if current, ok := a[name]; ok {
		current.Add(current, value)
		return
	}
	a[name] = new(big.Rat).Set(value)
}

func (a amounts) get(name string) *big.Rat {
	if v, ok := a[name]; ok {
		return v
	}
	return new(big.Rat)
}

// milliCPU and units turn exact sums into the integers the scheduler compares (MilliValue for cpu, Value otherwise).
func (a amounts) milliCPU() int64         { return ceilScaled(a.get("cpu"), 3) }
func (a amounts) units(name string) int64 { return ceilScaled(a.get(name), 0) }
