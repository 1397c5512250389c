package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/holomem/holomem"
)

// parseHalfLife reads a half-life: a Go duration ("720h") or days ("90d",
// "1.5d"), the unit people think of decay in. time.ParseDuration stops at
// hours, and silently keeping the default on "90d" hid the mistake. Any
// negative value turns decay off (for every category: see
// retrieve.Options.HalfLife), so a bare negative number ("-1") needs no
// unit; a bare positive one is refused, since 90 could mean days or hours.
func parseHalfLife(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	bad := fmt.Errorf("%w: half-life %q: give days or a duration, e.g. 90d or 720h (negative: no decay)", holomem.ErrInvalid, s)
	if f, err := strconv.ParseFloat(s, 64); err == nil && f < 0 && !math.IsInf(f, 0) {
		return -time.Nanosecond, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		f, err := strconv.ParseFloat(days, 64)
		// 100,000 days is far past any useful half-life and well inside int64 nanoseconds.
		if err != nil || math.IsNaN(f) || math.Abs(f) > 1e5 {
			return 0, bad
		}
		return time.Duration(f * 24 * float64(time.Hour)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, bad
	}
	return d, nil
}

// halfLifeFlag is the --half-life flag: a duration that also takes days.
type halfLifeFlag struct{ d *time.Duration }

func (f halfLifeFlag) String() string {
	if f.d == nil || *f.d == 0 {
		return ""
	}
	if *f.d < 0 {
		return "-1"
	}
	if *f.d%(24*time.Hour) == 0 {
		return strconv.FormatInt(int64(*f.d/(24*time.Hour)), 10) + "d"
	}
	return f.d.String()
}

func (f halfLifeFlag) Set(s string) error {
	d, err := parseHalfLife(s)
	if err != nil {
		return err
	}
	*f.d = d
	return nil
}

func (f halfLifeFlag) Type() string { return "duration" }
