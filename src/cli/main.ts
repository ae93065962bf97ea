import { runAsProcess } from './process';

void runAsProcess();
