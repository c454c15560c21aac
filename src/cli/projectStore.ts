import type { Services } from '../services.js';

/**
 * How a command reaches the database: main.ts opens the store, builds the services on it
 * (`createServices`), resolves the project's name to its id and runs the action. Its own file so that the experiments commands and the results command they
 * nest both take it without importing each other.
 */
export type WithProjectStore = <T>(project: string, action: (services: Services, projectId: string) => Promise<T>) => Promise<T>;
