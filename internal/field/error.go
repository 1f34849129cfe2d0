package field

import (
	"fmt"
	"strings"
)

// Error is a setting that cannot be used: Field names it as its struct
// field (dotted for nested ones, e.g. "Target.Addr"), Value shows what was
// given, and Reason says what is wrong and, where it can, the fix.
//
// A reason made by Errorf may refer to other fields with Ref arguments:
// Error writes them as their field names, Text as a caller names them
// (the CLI, as the flags that set them). An Error of no Field is a reason
// alone, which refers to the fields that fix it.
type Error struct {
	Field  string
	Value  string
	Reason string

	format string // Errorf's format, whose Ref arguments Text renames
	args   []any
}

// Ref is a field that an error's reason refers to, an argument of
// Errorf's format (written with %s).
type Ref string

func (e *Error) Error() string { return e.Text(nil) }

// Text is the error with every field, its own and those its reason
// refers to, written as name writes them (nil keeps the field names).
// A reason that starts with its own field is the whole message.
func (e *Error) Text(name func(field string) string) string {
	if name == nil {
		name = func(f string) string { return f }
	}
	reason := e.Reason
	if e.format != "" {
		args := make([]any, len(e.args))
		for i, a := range e.args {
			if r, ok := a.(Ref); ok {
				a = name(string(r))
			}
			args[i] = a
		}
		reason = fmt.Sprintf(e.format, args...)
		if strings.HasPrefix(e.format, "%s") && len(e.args) > 0 && e.args[0] == Ref(e.Field) {
			return reason
		}
	}
	if e.Field == "" {
		return reason
	}
	if e.Value == "" {
		return fmt.Sprintf("%s: %s", name(e.Field), reason)
	}
	return fmt.Sprintf("%s %s: %s", name(e.Field), e.Value, reason)
}

// Errorf returns an Error for field with value shown by %v and a reason
// formatted from format and args, whose Ref arguments name other fields.
func Errorf(name string, value any, format string, args ...any) *Error {
	v := ""
	if value != nil {
		v = fmt.Sprint(value)
	}
	e := &Error{Field: name, Value: v, format: format, args: args}
	e.Reason = fmt.Sprintf(format, args...)
	return e
}
