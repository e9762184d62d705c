package backend

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
)

// CODEC-5 TIMESTAMP values are stored as UTC instants. go-mysql-server hands
// a TIMESTAMP over as a wall-clock time in the session's time_zone (its
// time.Time carries no zone); canonical converts it to UTC on the way in
// and decodeRow back to the session's wall clock on the way out, so a
// value reads back the same in one zone and moves with time_zone, as in
// MySQL. DATETIME values are wall clocks and are stored as given. Tables
// created before KeyFormat 1 (CODEC-8) stored TIMESTAMPs as given and keep
// doing so, so their values do not move.

var zones sync.Map // time_zone value -> *time.Location

// sessionZone is the location of ctx's session time_zone, or nil for UTC
// (no conversion).
func sessionZone(ctx context.Context) *time.Location {
	sc, ok := ctx.(*sql.Context)
	if !ok || sc == nil || sc.Session == nil {
		return nil
	}
	v, err := sc.GetSessionVariable(sc, "time_zone")
	if err != nil {
		return nil
	}
	name, _ := v.(string)
	if name == "" || name == "+00:00" || name == "UTC" {
		return nil
	}
	if loc, ok := zones.Load(name); ok {
		return loc.(*time.Location)
	}
	loc := parseZone(name)
	zones.Store(name, loc)
	return loc
}

// parseZone reads a time_zone value: SYSTEM, an offset (+05:30) or a
// named zone; nil when it is UTC or unknown.
func parseZone(name string) *time.Location {
	if strings.EqualFold(name, "SYSTEM") {
		if _, off := time.Now().Zone(); off == 0 {
			return nil
		}
		return time.Local
	}
	if len(name) == 6 && (name[0] == '+' || name[0] == '-') && name[3] == ':' {
		h, err1 := strconv.Atoi(name[1:3])
		m, err2 := strconv.Atoi(name[4:6])
		if err1 != nil || err2 != nil {
			return nil
		}
		off := h*3600 + m*60
		if name[0] == '-' {
			off = -off
		}
		if off == 0 {
			return nil
		}
		return time.FixedZone(name, off)
	}
	loc, err := time.LoadLocation(name)
	if err != nil || loc == time.UTC {
		return nil
	}
	return loc
}

// toUTC reads t's wall clock in loc and returns that instant in UTC.
func toUTC(t time.Time, loc *time.Location) time.Time {
	if loc == nil {
		return t
	}
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), loc).UTC()
}

// fromUTC returns instant t's wall clock in loc, zone-less (UTC).
func fromUTC(t time.Time, loc *time.Location) time.Time {
	if loc == nil {
		return t
	}
	w := t.In(loc)
	return time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), time.UTC)
}
