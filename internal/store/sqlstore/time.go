package sqlstore

import "time"

// FromNanos is the time of a stored nanosecond column, in UTC.
func FromNanos(n int64) time.Time { return time.Unix(0, n).UTC() }
