package field

import "fmt"

// Error is a setting that cannot be used: Field names it as its struct
// field (dotted for nested ones, e.g. "Target.Addr"), Value shows what was
// given, and Reason says what is wrong and, where it can, the fix.
type Error struct {
	Field  string
	Value  string
	Reason string
}

func (e *Error) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("%s: %s", e.Field, e.Reason)
	}
	return fmt.Sprintf("%s %s: %s", e.Field, e.Value, e.Reason)
}

// Errorf returns an Error for field with value shown by %v and a reason
// formatted from format and args.
func Errorf(name string, value any, format string, args ...any) *Error {
	v := ""
	if value != nil {
		v = fmt.Sprint(value)
	}
	return &Error{Field: name, Value: v, Reason: fmt.Sprintf(format, args...)}
}
