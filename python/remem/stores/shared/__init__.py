"""Parts the store backends share: argument checks (records, graph; vectors in
`vector_input`), row codecs, filters, text normalisation."""
