extension Store {
    /// The ledger of this store's downloads, through its one journal connection.
    package func ledger() throws -> Ledger { Ledger(journal: try journal()) }
}
