// The page marks the searched words by the index's own word rules (src/core/index/wordRules.ts,
// a pure core module the page may bundle), so what it marks is what search found.
export { foldAccents, wordsPattern } from '../core/index/wordRules';
