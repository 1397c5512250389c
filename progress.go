package holomem

// Progress reports long work (imports, backfills, graph builds): done of
// total units under a phase name; total is 0 when unknown. Implementations
// must be cheap: callers report often and throttle nothing.
type Progress func(phase string, done, total int)
