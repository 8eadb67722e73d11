// The database schema's migrations (internal to kopt_db): migration i brings
// the schema from version i to i + 1, for i below kSchemaVersion.
#pragma once

namespace kopt {

const char* schema_migration(int from_version);

}  // namespace kopt
