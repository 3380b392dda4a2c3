package rule

// FIXME: a rule severity above 3 is treated as 3
const MaxSeverity = 3

// Clamp keeps a rule severity within range.
func Clamp(severity int) int {
	if severity > MaxSeverity {
		return MaxSeverity
	}
	return severity
}
