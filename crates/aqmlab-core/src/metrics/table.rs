//! Columnar tables: how results cross into Python (one `Vec` per column, like Arrow).

/// One column of values.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    F64(Vec<f64>),
    I64(Vec<i64>),
    Str(Vec<String>),
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::F64(v) => v.len(),
            Column::I64(v) => v.len(),
            Column::Str(v) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Named columns of equal length.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub columns: Vec<(String, Column)>,
}

impl Table {
    pub fn new() -> Table {
        Table::default()
    }
    pub fn push(&mut self, name: &str, col: Column) {
        debug_assert!(
            self.columns
                .first()
                .is_none_or(|(_, c)| c.len() == col.len()),
            "ragged column {name}"
        );
        self.columns.push((name.to_string(), col));
    }
    pub fn get(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }
    pub fn f64(&self, name: &str) -> Option<&[f64]> {
        match self.get(name) {
            Some(Column::F64(v)) => Some(v),
            _ => None,
        }
    }
    pub fn i64(&self, name: &str) -> Option<&[i64]> {
        match self.get(name) {
            Some(Column::I64(v)) => Some(v),
            _ => None,
        }
    }
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |(_, c)| c.len())
    }
}
