package sqlite

// SetVectors implements sqlstore.WriteTx: one update per fact.
func (w *wtx) SetVectors(model string, ids []int64, blobs [][]byte) error {
	for i, id := range ids {
		if _, err := w.exec("UPDATE facts SET model_id = ?, embedding = ? WHERE id = ?", model, blobs[i], id); err != nil {
			return err
		}
	}
	return nil
}
