"""Parts the store backends share: argument checks, row codecs, filters, text normalisation."""
