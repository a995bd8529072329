// The service's group commit (../group-commit.ts), under the name the PostgreSQL store first had.
export { GroupCommit, type GroupCommitOptions } from '../store/group-commit.js';
