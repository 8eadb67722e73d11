// A prepared SQLite statement (internal to kopt_db).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>

#include "sandbox/contract/status.h"

namespace kopt {

// A prepared statement with positional binding; finalised on scope exit.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    rc_ = sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr);
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Status prepared() const {
    return rc_ == SQLITE_OK ? Status()
                            : Status::error(std::string("database: ") + sqlite3_errmsg(db_));
  }
  Statement& bind(const std::string& v) {
    sqlite3_bind_text(stmt_, ++index_, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& bind(const char* v) { return bind(std::string(v)); }
  Statement& bind(int64_t v) {
    sqlite3_bind_int64(stmt_, ++index_, v);
    return *this;
  }
  Statement& bind(double v) {
    sqlite3_bind_double(stmt_, ++index_, v);
    return *this;
  }
  Statement& bind(const std::optional<double>& v) {
    if (v) return bind(*v);
    sqlite3_bind_null(stmt_, ++index_);
    return *this;
  }
  // SQLITE_ROW: a row is ready; SQLITE_DONE: finished.
  int step() { return rc_ = sqlite3_step(stmt_); }
  Status done() {
    int r = step();
    return r == SQLITE_DONE || r == SQLITE_ROW
               ? Status()
               : Status::error(std::string("database: ") + sqlite3_errmsg(db_));
  }
  std::string text(int col) const {
    const unsigned char* t = sqlite3_column_text(stmt_, col);
    return t ? std::string(reinterpret_cast<const char*>(t),
                           static_cast<size_t>(sqlite3_column_bytes(stmt_, col)))
             : "";
  }
  int64_t integer(int col) const { return sqlite3_column_int64(stmt_, col); }
  double real(int col) const { return sqlite3_column_double(stmt_, col); }
  bool is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  int rc() const { return rc_; }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  int rc_ = SQLITE_OK;
  int index_ = 0;
};

}  // namespace kopt
