package breaking

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rankgen/rankgen/generator/layout"
)

// Rule is one kind of breaking change: a stable ID that scripts and CI configuration can
// match, its category, what it detects in one line, and the check that detects it.
type Rule struct {
	ID       string   `json:"id"`
	Category Category `json:"category"`
	Purpose  string   `json:"purpose"`
	scope    scope
	// check reports the rule's changes through p. For rules of scope eachField, true means
	// the pair's later rules follow from this change and are not reported.
	check func(p *probe) bool
}

// scope says what a rule's check compares.
type scope int

const (
	wholeSchema scope = iota // the two schemas, once
	eachField                // each pair of fields of the same name
	fallback                 // the two schemas, once, when no other rule of the category fired
	packageFile              // two package files' lists of boards (RemovedBoards), not Compare's
)

// Rules returns every rule, WIRE first, in the order Compare reports them.
func Rules() []Rule { return slices.Clone(ruleTable) }

// ruleTable is the registry: Compare runs exactly these checks, in this order within each
// category and scope.
var ruleTable = []Rule{
	{"SCORE", Wire, "the score kind or its decimal places change: every stored score reads as another number", wholeSchema, checkScore},
	{"ID_TYPE", Wire, "the id's type changes between string and uint64", wholeSchema, checkIDType},
	{"ID_ORDER", Wire, "the id's order (ties ranked by id descending or ascending) flips: stored members hold the id's text the other way round", wholeSchema, checkIDOrder},
	{"SEPARATOR", Wire, "the member separator changes while the member carries a field prefix", wholeSchema, checkSeparator},
	{"FIELD_COUNT", Wire, "a field is inserted or removed (fields match by name): stored entries hold no value for it, or one the new code does not read", eachField, checkFieldCount},
	{"FIELD_MOVED", Wire, "a field moves to another position among the fields (matched by name): stored entries hold another field's value where the new code reads it", eachField, checkFieldMoved},
	{"FIELD_KIND", Wire, "a field's type changes: its stored digits mean other values", eachField, checkFieldKind},
	{"FIELD_PLACE", Wire, "a field moves between the score and the member", eachField, checkFieldPlace},
	{"FIELD_ORDER", Wire, "a field's order flips: stored entries rank backwards on it", eachField, checkFieldOrder},
	{"FIELD_RADIX", Wire, "a field's width (its radix) changes", eachField, checkFieldRadix},
	{"FIELD_WEIGHT", Wire, "a score field's weight changes, as a field after it changed width or place", eachField, checkFieldWeight},
	{"FIELD_ENUM_VALUES", Wire, "an enum's values change or are reordered: stored digits name other values", eachField, checkFieldEnumValues},
	{"FIELD_UNIT", Wire, "a time field's unit changes: stored digits count other units", eachField, checkFieldUnit},
	{"FIELD_RANGE", Wire, "a field's range (min, max or a time's epoch) changes", eachField, checkFieldRange},
	{"FIELD_TEXT", Wire, "a member field's text width or hex/decimal form changes", eachField, checkFieldText},
	{"SEASON", Wire, "a board's season calendar (period, start, zone) comes, goes or changes: season ids, keys and season-anchored offsets mean other instants", wholeSchema, checkSeason},
	{"DATA_COUNT", Wire, "a data field is removed, or added where the stored data cannot take it (its Go zero outside its range): the data stored with each entry holds another number of values", wholeSchema, checkDataCount},
	{"DATA_FORMAT", Wire, "a data field's type, range, enum values, unit or max_bytes changes: its stored values mean others", wholeSchema, checkDataFormat},
	{"LAYOUT", Wire, "the layout fingerprint changes and no other rule says why (a gap in the rules)", fallback, checkLayout},
	{"PACKAGE", Source, "the Go package name changes", wholeSchema, checkPackage},
	{"ID_NAME", Source, "the id's Go field name changes", wholeSchema, checkIDName},
	{"ID_GO_TYPE", Source, "the id's Go type changes (string or uint64)", wholeSchema, checkIDGoType},
	{"FIELD_REMOVED", Source, "a field is gone (or renamed): its Entry field and Board methods no longer exist", eachField, checkFieldRemoved},
	{"FIELD_GO_TYPE", Source, "a field's Go type changes", eachField, checkFieldGoType},
	{"UPDATE_REMOVED", Source, "an update is dropped from a field's update list: its Board methods no longer exist", eachField, checkUpdateRemoved},
	{"ENUM_VALUE_REMOVED", Source, "an enum value is gone, and with it its Go constant", eachField, checkEnumValueRemoved},
	{"SEASONS_API", Source, "a board becomes periodic or stops being: NewBoard gains or loses its Season, Seasons comes or goes", wholeSchema, checkSeasonsAPI},
	{"SEASON_ZONE_REMOVED", Source, "a regional board stops serving a zone: its Zone constant is gone, NewSeasons refuses it, and its boards are no longer written; adding a zone breaks nothing", wholeSchema, checkZoneRemoved},
	{"DATA_REMOVED", Source, "a data field is gone (or renamed): its Data field no longer exists", wholeSchema, checkDataRemoved},
	{"DATA_GO_TYPE", Source, "a data field's Go type changes", wholeSchema, checkDataGoType},
	{"FEED_API", Source, "a feed is gone, or a board or key part of it: its generated type, result field or key part no longer exists; adding one breaks nothing", wholeSchema, checkFeedAPI},
	{"BOARD_REMOVED", Source, "a board of a package of boards is gone (or renamed): its Go types, constructors and functions no longer exist; adding a board breaks nothing", packageFile, checkBoardRemoved},
	{"SHARDED_API", Source, "sharded: true is dropped: ShardedBoard (and a periodic board's Seasons.Sharded) is no longer generated; adding it breaks nothing", wholeSchema, checkShardedAPI},
}

func checkScore(p *probe) bool {
	o, n := p.oldL(), p.newL()
	if o.Score != n.Score || o.DecimalPlaces != n.DecimalPlaces {
		p.atKey([]string{"score"}, "the score changes from %s to %s: every stored score reads as another number", scoreText(o), scoreText(n))
	}
	return false
}

func checkIDType(p *probe) bool {
	o, n := p.oldL(), p.newL()
	if o.IDType != n.IDType {
		p.atKey([]string{"id", "type"}, "the id changes from %s to %s: %s", o.IDType, n.IDType,
			map[layout.IDType]string{
				layout.IDUint64: "stored ids that are not canonical decimals no longer decode",
				layout.IDString: "stored ids still read, as text, but the old code cannot read ids the new one writes",
			}[n.IDType])
	}
	return false
}

func checkIDOrder(p *probe) bool {
	o, n := p.oldL(), p.newL()
	if o.IDOrder != n.IDOrder {
		p.atKey([]string{"id", "order"}, "the id's order changes from %s to %s: stored members hold the id's text %s, which the new code %s",
			o.IDOrder, n.IDOrder, map[layout.Order]string{layout.Desc: "as it is", layout.Asc: "reversed"}[o.IDOrder],
			map[layout.Order]string{layout.Desc: "reads as another id", layout.Asc: "does not decode"}[n.IDOrder])
	}
	return false
}

func checkSeparator(p *probe) bool {
	o, n := p.oldL(), p.newL()
	if o.HasMemberFields() && n.HasMemberFields() && o.Separator != n.Separator {
		p.atKey([]string{"separator"}, "the member separator changes from %q to %q: stored members no longer split into fields", o.Separator, n.Separator)
	}
	return false
}

func checkFieldCount(p *probe) bool {
	switch {
	case p.new == nil:
		p.atOldField(p.old, "%s is removed from position %d, %s: stored entries hold its value, which the new code does not read (rankgen migrate drops it: -drop %s)%s",
			p.old.Name, p.oldPos+1, neighbour(p.oldL().Fields, p.oldPos), p.old.Name, p.renameHint(p.old.Name))
	case p.old == nil:
		p.atField(p.new, "%s is inserted at position %d, %s: stored entries hold no value for it (rankgen migrate gives them one: -default %s=VALUE)%s",
			p.new.Name, p.newPos+1, neighbour(p.newL().Fields, p.newPos), p.new.Name, p.renameHint(p.new.Name))
	default:
		return false
	}
	return true
}

// renameHint is what a likely rename involving the field adds to its message.
func (p *probe) renameHint(name string) string {
	r, ok := p.c.match.renameOf(name)
	if !ok {
		return ""
	}
	return fmt.Sprintf("; if %s is %s renamed (they have the same Go type), -rename %s=%s keeps the values instead", r.New, r.Old, r.Old, r.New)
}

// neighbour places the field at position i among fields by the one after it, or before it
// when it comes last.
func neighbour(fields []*layout.Field, i int) string {
	switch {
	case i+1 < len(fields):
		return "before " + fields[i+1].Name
	case i > 0:
		return "after " + fields[i-1].Name + ", the last"
	}
	return "the only field"
}

func checkFieldMoved(p *probe) bool {
	if !p.c.match.moved[p.new.Name] {
		return false
	}
	fix := "rankgen migrate maps it by name"
	if p.oldL().StoreFingerprint == p.newL().StoreFingerprint {
		fix = "the layouts store entries the same way, so the new code reads old boards without ErrLayoutMismatch, and a migrated board could not be told from an old one: migrate through an intermediate schema that stores differently, or use a new key"
	}
	p.atField(p.new, "%s moves from position %d to %d, %s: stored entries hold another field's value where the new code reads it (%s)",
		p.new.Name, p.oldPos+1, p.newPos+1, neighbour(p.newL().Fields, p.newPos), fix)
	return false
}

func checkFieldKind(p *probe) bool {
	if p.old.Kind == p.new.Kind {
		return false
	}
	p.wire("type %s → %s: its stored digits mean other values", p.old.Kind, p.new.Kind)
	return true // the rest follows from the kind
}

func checkFieldPlace(p *probe) bool {
	if p.old.Place != p.new.Place {
		p.wire("moves from the %s to the %s: stored entries hold it where the new code does not read it", p.old.Place, p.new.Place)
	}
	return false
}

func checkFieldOrder(p *probe) bool {
	if p.old.Order != p.new.Order {
		p.wire("order %s → %s: every stored digit is mirrored, so stored entries rank backwards on it", p.old.Order, p.new.Order)
	}
	return false
}

func bothInScore(p *probe) bool {
	return p.old.Place == layout.InScore && p.new.Place == layout.InScore
}

func checkFieldRadix(p *probe) bool {
	o, n := p.old, p.new
	if o.MaxDigit == n.MaxDigit {
		return false
	}
	radix := fmt.Sprintf("radix %s → %s", radixText(o), radixText(n))
	switch {
	case bothInScore(p) && p.oldPos == 0 && p.newPos == 0 && o.Weight == n.Weight:
		p.wire("%s: it leads the score with the same weight, so stored digits keep their values; only what it can hold changes", radix)
	case bothInScore(p) && p.oldPos == 0 && p.newPos == 0:
		p.wire("%s: stored scores give it other digits", radix)
	case bothInScore(p):
		p.wire("%s: stored scores give it other digits, and every field before it another weight", radix)
	default:
		p.wire("%s: its stored digits are read against another radix", radix)
	}
	return false
}

// checkFieldWeight reports a weight that changes with a later field's width or place; one that
// changes because a field is inserted, removed or moved follows from that change, reported.
func checkFieldWeight(p *probe) bool {
	if bothInScore(p) && p.old.Weight != p.new.Weight && !p.c.match.rearranged() {
		p.wire("weight %d → %d (a field after it changed width or place): stored scores give it other values", p.old.Weight, p.new.Weight)
	}
	return false
}

func enumValuesDiffer(p *probe) bool {
	return p.old.Kind == layout.Enum && !slices.Equal(p.old.Values, p.new.Values)
}

func unitDiffers(p *probe) bool {
	return p.old.Kind == layout.Time && p.old.Unit != p.new.Unit
}

func checkFieldEnumValues(p *probe) bool {
	if enumValuesDiffer(p) {
		p.wire("values [%s] → [%s]: stored digits name other values", strings.Join(p.old.Values, " "), strings.Join(p.new.Values, " "))
	}
	return false
}

func checkFieldUnit(p *probe) bool {
	if !enumValuesDiffer(p) && unitDiffers(p) {
		p.wire("unit %s → %s: stored digits count other units", p.old.Unit, p.new.Unit)
	}
	return false
}

// checkFieldRange reports a moved range unless new enum values or a new unit already explain
// it.
func checkFieldRange(p *probe) bool {
	o, n := p.old, p.new
	if enumValuesDiffer(p) || unitDiffers(p) || o.Lo == n.Lo && o.Hi == n.Hi {
		return false
	}
	// A digit is the offset of a value from the range's low end (desc) or high end (asc).
	end, moved := "low", o.Lo != n.Lo
	if n.Order == layout.Asc {
		end, moved = "high", o.Hi != n.Hi
	}
	rng := fmt.Sprintf("range %s … %s → %s … %s", o.Format(o.Lo), o.Format(o.Hi), n.Format(n.Lo), n.Format(n.Hi))
	switch {
	case moved:
		p.wire("%s: a stored digit is an offset from the range's %s end, which moves", rng, end)
	case o.MaxDigit == n.MaxDigit: // with a new radix, the range only follows the width
		p.wire("%s: stored digits keep their values (the %s end stays), but values outside the new range no longer decode", rng, end)
	}
	return false
}

func checkFieldText(p *probe) bool {
	o, n := p.old, p.new
	if o.Place == layout.InMember && n.Place == layout.InMember && (o.TextWidth != n.TextWidth || o.Hex != n.Hex) {
		p.wire("member text %s → %s: stored members no longer split into fields", textShape(o), textShape(n))
	}
	return false
}

// checkLayout keeps a rule missing for a future schema key from passing CI silently: it is
// unreachable while the rules above cover the canonical layout.
func checkLayout(p *probe) bool {
	if o, n := p.oldL(), p.newL(); o.Fingerprint == n.Fingerprint {
		p.atKey(nil, "the data fingerprint changes from %s to %s", o.DataFingerprint, n.DataFingerprint)
		return false
	}
	p.atKey(nil, "the layout fingerprint changes from %s to %s", p.oldL().Fingerprint, p.newL().Fingerprint)
	return false
}

// checkShardedAPI reports dropping sharded: true, at the old schema's key: only the generated
// API changes (no stored byte does), and only a removal breaks its users.
func checkShardedAPI(p *probe) bool {
	if o, n := p.oldL(), p.newL(); o.Sharded && !n.Sharded {
		line, col := layout.KeyPos(p.c.old.Src, "sharded")
		what := "ShardedBoard and NewShardedBoard are"
		if o.Season != nil {
			what = "ShardedBoard, NewShardedBoard, Seasons.Sharded and Seasons.ExistingSharded are"
		}
		p.add(p.c.old.name(), line, col, "sharded: true is gone: %s no longer generated", what)
	}
	return false
}

func checkPackage(p *probe) bool {
	if o, n := p.oldL(), p.newL(); o.Package != n.Package {
		p.atKey([]string{"package"}, "package %s → %s: imports of the generated package break", o.Package, n.Package)
	}
	return false
}

func checkIDName(p *probe) bool {
	if o, n := p.oldL(), p.newL(); o.IDName != n.IDName {
		p.atKey([]string{"id", "name"}, "Entry.%s is now Entry.%s (and Update.%s)", o.IDName, n.IDName, n.IDName)
	}
	return false
}

func checkIDGoType(p *probe) bool {
	if o, n := p.oldL(), p.newL(); o.IDType != n.IDType {
		p.atKey([]string{"id", "type"}, "ids are %s, not %s, in Entry, Update and every method taking an id", goID(n), goID(o))
	}
	return false
}

func checkFieldRemoved(p *probe) bool {
	if p.new != nil {
		return false
	}
	p.atOldField(p.old, "field %s is gone: Entry.%s and its methods no longer exist", p.old.Name, p.old.Name)
	return true
}

func checkFieldGoType(p *probe) bool {
	if p.old.GoType != p.new.GoType {
		p.atField(p.new, "Entry.%s is %s, not %s", p.new.Name, p.new.GoType, p.old.GoType)
	}
	return false
}

func checkUpdateRemoved(p *probe) bool {
	for _, op := range p.old.Updates {
		if !slices.Contains(p.new.Updates, op) {
			m := methodName(op, p.new.Name)
			p.atField(p.new, "update %s of %s is gone: Board.%s, Board.%sMany and the change %s no longer exist", op, p.new.Name, m, m, m)
		}
	}
	return false
}

func checkEnumValueRemoved(p *probe) bool {
	if p.old.Kind != layout.Enum || p.new.Kind != layout.Enum {
		return false
	}
	for _, v := range p.old.Values {
		if !slices.Contains(p.new.Values, v) {
			p.atField(p.new, "enum value %s of %s is gone, and with it its constant", v, p.new.Name)
		}
	}
	return false
}

func scoreText(l *layout.Layout) string {
	switch l.Score {
	case layout.ScoreDecimal:
		return fmt.Sprintf("decimal with %d places", l.DecimalPlaces)
	case layout.ScoreBits62:
		return "bits62 (bit patterns)"
	}
	return "integer"
}

func radixText(f *layout.Field) string {
	switch {
	case f.MaxDigit == ^uint64(0):
		return "2^64"
	case f.RadixKind == layout.RadixBits:
		return fmt.Sprintf("%d (bits %d)", f.MaxDigit+1, f.Width)
	case f.RadixKind == layout.RadixDigits:
		return fmt.Sprintf("%d (digits %d)", f.MaxDigit+1, f.Width)
	}
	return fmt.Sprint(f.MaxDigit + 1)
}

func textShape(f *layout.Field) string {
	if f.Hex {
		return fmt.Sprintf("%d hex characters", f.TextWidth)
	}
	return fmt.Sprintf("%d decimal digits", f.TextWidth)
}

func goID(l *layout.Layout) string {
	if l.IDType == layout.IDUint64 {
		return "uint64"
	}
	return "string"
}

// methodName is the Board method of an update: Add<F>, Max<F>, Min<F> or Set<F>.
func methodName(op layout.Op, field string) string {
	return strings.ToUpper(string(op[:1])) + string(op[1:]) + field
}
