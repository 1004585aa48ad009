// Package junit is the one JUnit XML model of the harness (the shape GitHub
// Actions, GitLab and Jenkins read), written by the report renderer
// (render.JUnit: a suite per run) and by the campaign (junit.xml: a suite
// per variant and scenario, and the gate). Peer text must reach it already
// made safe (escape.Line): XML cannot carry control characters.
package junit

import (
	"encoding/xml"
	"fmt"
)

// Suites is the document: one <testsuites>. Errors is written only when
// set (the report renderer writes errors="0"; the campaign writes none).
type Suites struct {
	XMLName  xml.Name `xml:"testsuites"`
	Name     string   `xml:"name,attr"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   *int     `xml:"errors,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Suites   []Suite  `xml:"testsuite"`
}

// Suite is one <testsuite>; its counts are filled in by Suites.Add. Errors
// and Time are written only when set.
type Suite struct {
	Name     string  `xml:"name,attr"`
	Tests    int     `xml:"tests,attr"`
	Failures int     `xml:"failures,attr"`
	Errors   *int    `xml:"errors,attr"`
	Skipped  int     `xml:"skipped,attr"`
	Time     *string `xml:"time,attr"`
	Cases    []Case  `xml:"testcase"`
}

// Case is one <testcase>: a failure, skipped, or neither (passed).
type Case struct {
	Name      string   `xml:"name,attr"`
	ClassName string   `xml:"classname,attr"`
	Time      *string  `xml:"time,attr"`
	Failure   *Message `xml:"failure,omitempty"`
	Skipped   *Message `xml:"skipped,omitempty"`
	SystemOut string   `xml:"system-out,omitempty"`
}

// Message is a <failure> or <skipped>.
type Message struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// Seconds is a time attribute: s with three decimals.
func Seconds(s float64) *string {
	t := fmt.Sprintf("%.3f", s)
	return &t
}

// Add counts s's cases (tests, failures, skipped) into s and into the
// document's totals, and appends s.
func (d *Suites) Add(s Suite) {
	s.Tests, s.Failures, s.Skipped = len(s.Cases), 0, 0
	for _, c := range s.Cases {
		if c.Failure != nil {
			s.Failures++
		}
		if c.Skipped != nil {
			s.Skipped++
		}
	}
	d.Tests += s.Tests
	d.Failures += s.Failures
	d.Skipped += s.Skipped
	d.Suites = append(d.Suites, s)
}

// Encode returns the document with the XML header, indented by two spaces,
// and a final newline.
func Encode(d Suites) []byte {
	out, err := xml.MarshalIndent(d, "", "  ")
	if err != nil {
		panic("junit: " + err.Error()) // strings and ints always encode
	}
	return append(append([]byte(xml.Header), out...), '\n')
}
