/** Registers every built-in component with the registry (imported by the child-process entry). */
export {};
