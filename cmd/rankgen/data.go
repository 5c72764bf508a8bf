package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/rankgen/rankgen/generator/layout"
)

// An entry's data fields (data: in the schema) are stored beside the board, in its data hash,
// one hash field per id: encode prints that value as "data" beside the score and member, and
// decode reads it back into the data fields. Both use the interpreted codec's EncodeData and
// DecodeData, which the generated Data is tested against.

// dataKey is the key of an encoding's data: the data hash's value for the entry's id.
const dataKey = "data"

// dataNames are the names of l's data fields.
func dataNames(l *layout.Layout) []string {
	names := make([]string, len(l.Data))
	for i, f := range l.Data {
		names[i] = f.Name
	}
	return names
}

// dataFromJSON reads the data fields of an entry object and returns the data as a board stores
// it. A data field not given takes its Go zero value, as the generated Data's zero value does;
// a value out of its field's range (or a zero value outside it) is an error.
func dataFromJSON(l *layout.Layout, obj map[string]json.RawMessage) (string, error) {
	vals := l.ZeroData()
	for i, f := range l.Data {
		raw, ok := obj[f.Name]
		if !ok {
			continue
		}
		var err error
		if f.Kind == layout.String {
			vals[i].Text, err = dataTextFromJSON(f, raw)
		} else {
			vals[i].Key, err = keyFromJSON(f, raw)
		}
		if err != nil {
			return "", err
		}
	}
	data, err := l.EncodeData(vals)
	if err != nil {
		return "", fmt.Errorf("data: %s", errText(err))
	}
	return data, nil
}

// dataTextFromJSON reads a string data field's value: a JSON string.
func dataTextFromJSON(f *layout.Field, raw json.RawMessage) (string, error) {
	v, err := jsonValue(raw)
	if err != nil {
		return "", fmt.Errorf("%s: %s", f.Name, jsonErr(err))
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s: want a string, got %s", f.Name, describe(v))
	}
	return s, nil
}

// dataFromEncoding reads an encoding's "data" (a JSON string), if the line has one.
func dataFromEncoding(obj map[string]json.RawMessage) (data string, has bool, err error) {
	raw, ok := obj[dataKey]
	if !ok {
		return "", false, nil
	}
	v, err := jsonValue(raw)
	if err != nil {
		return "", false, fmt.Errorf("data: %s", jsonErr(err))
	}
	s, ok := v.(string)
	if !ok {
		return "", false, fmt.Errorf("data: want the data hash's value as a string, got %s", describe(v))
	}
	return s, true, nil
}

// dataJSON decodes data as a board stores it and writes each data field with put, in the form
// encode reads.
func dataJSON(l *layout.Layout, data string, put func(k, v string)) error {
	vals, err := l.DecodeData(data)
	if err != nil {
		return fmt.Errorf("data: %s", errText(err))
	}
	for i, f := range l.Data {
		switch f.Kind {
		case layout.String:
			put(f.Name, dataTextJSON(vals[i].Text))
		case layout.Uint, layout.Int, layout.Bool:
			put(f.Name, f.Format(vals[i].Key))
		default:
			put(f.Name, jsonString(f.Format(vals[i].Key)))
		}
	}
	return nil
}

// notUTF8Key names, in decode's output, the Go-quoted text of a stored data string that is not
// valid UTF-8.
const notUTF8Key = "not_utf8"

// dataTextJSON is a string data value as decode prints it: a JSON string, or for a value that
// is not valid UTF-8 (which every rankgen encoder refuses, but other code may have stored), an
// object holding its exact Go-quoted text, {"not_utf8": ""ab\xff""}: every byte shown, and
// never read back by encode as other text (encode wants a string there).
func dataTextJSON(text string) string {
	if utf8.ValidString(text) {
		return jsonString(text)
	}
	return `{"` + notUTF8Key + `": ` + jsonString(strconv.Quote(text)) + `}`
}

// encodingDataJSON is encodingJSON with the entry's data, as the board's data hash holds it.
func encodingDataJSON(l *layout.Layout, score float64, member, data string) string {
	return `{"score": ` + formatScore(score) + pJSON(l, score) + `, "member": ` + jsonString(member) + `, "` + dataKey + `": ` + jsonString(data) + `}`
}
