// Package report is the report file of behaviour §5: its model (the
// report, score and patches, the outcome vocabularies of operations and
// attempts, the file's statuses and envelope fields), its JSON Schema, its
// Markdown rendering, and reading a report file back (ParseRun).
//
// The judge (internal/judge) fills the model from its state and writes the
// file's bytes incrementally; this package holds no state of a run.
// internal/render turns a parsed file into JUnit XML.
package report
