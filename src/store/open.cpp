// store::Open: the one place that reads a store spec and picks the backend.
#include "store/store.h"

namespace affordance::store {

Result<std::unique_ptr<Store>> Open(const std::string& spec) {
  // libpq's own URI schemes; anything else is a path (a SQLite file never needs "://").
  if (spec.starts_with("postgresql://") || spec.starts_with("postgres://")) {
    return OpenPostgres(spec);
  }
  return OpenSqlite(spec);
}

}  // namespace affordance::store
