package neardup

import "strings"

// kind is a set of transformation kinds (behaviour §4.6) seen on a similar pair.
type kind uint16

const (
	kindNumberString kind = 1 << iota
	kindDecimal
	kindCase
	kindSpace
	kindUnicode
	kindInvisible
	kindNullEmpty
	kindOrder
	kindFields
	kindDate
)

var kindNames = [...]string{
	"number vs string",
	"decimal notation",
	"letter case",
	"white space",
	"Unicode normalisation",
	"invisible characters",
	"null vs empty string",
	"array element order",
	"fields added or omitted",
	"date notation",
}

// String lists the kinds, comma-separated, in a fixed order.
func (k kind) String() string {
	var names []string
	for i, n := range kindNames {
		if k&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}
